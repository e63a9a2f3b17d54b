import { afterAll, describe, it } from "@jest/globals";
import { rm } from "node:fs/promises";
import { extensionCaseDirectory, extensionKeyCases } from "./extension-key-cases.js";
import { caseRows, runOperatorKeyCase } from "./run-operator-key-case.js";
import { subagentKeyCases } from "./subagent-key-cases.js";

afterAll(() => rm(extensionCaseDirectory, { recursive: true, force: true }));

describe("operator keys for MCP servers, skills and tool timeouts", () => {
  it.each(caseRows(extensionKeyCases))("%s", (_title, entry) => runOperatorKeyCase(entry), 60_000);
});

describe("operator keys for subagents", () => {
  it.each(caseRows(subagentKeyCases))("%s", (_title, entry) => runOperatorKeyCase(entry), 60_000);
});
