import { it } from "@jest/globals";
import { describeWithBwrap } from "../sandbox/sandbox-test-helpers.js";
import { caseRows, runOperatorKeyCase } from "./run-operator-key-case.js";
import { sandboxAndAgentKeyCases } from "./sandbox-and-agent-key-cases.js";

// The baseline runs commands in bubblewrap: without it there is nothing to compare with.
describeWithBwrap("operator keys for the sandbox, commands, hooks and the App's budgets", () => {
  it.each(caseRows(sandboxAndAgentKeyCases))("%s", (_title, entry) => runOperatorKeyCase(entry), 60_000);
});
