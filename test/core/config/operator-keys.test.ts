import { afterAll, describe, expect, it } from "@jest/globals";
import { rm } from "node:fs/promises";
import { extensionCaseDirectory, extensionKeyCases } from "./extension-key-cases.js";
import { listOperatorKeys } from "./list-operator-keys.js";
import { modelAndBudgetKeyCases } from "./model-and-budget-key-cases.js";
import { caseRows, runOperatorKeyCase } from "./run-operator-key-case.js";
import { sandboxAndAgentKeyCases } from "./sandbox-and-agent-key-cases.js";
import { subagentKeyCases } from "./subagent-key-cases.js";

afterAll(() => rm(extensionCaseDirectory, { recursive: true, force: true }));

const allCases = [
  ...modelAndBudgetKeyCases,
  ...extensionKeyCases,
  ...sandboxAndAgentKeyCases,
  ...subagentKeyCases,
];

describe("every operator key", () => {
  it("has a case that shows it changing what happens", () => {
    const { leaves } = listOperatorKeys();
    const proven = new Set(allCases.flatMap((entry) => entry.keys));
    expect(leaves.filter((key) => !proven.has(key))).toEqual([]);
  });

  it("names only keys the schema has", () => {
    const { all } = listOperatorKeys();
    const named = [...new Set(allCases.flatMap((entry) => entry.keys))];
    expect(named.filter((key) => !all.includes(key))).toEqual([]);
  });
});

describe("operator keys that shape the model and the run's limits", () => {
  it.each(caseRows(modelAndBudgetKeyCases))("%s", (_title, entry) => runOperatorKeyCase(entry), 60_000);
});
