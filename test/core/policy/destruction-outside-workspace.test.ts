import { describe, expect, it } from "@jest/globals";
import { evaluateCommand } from "../../../src/core/policy/evaluate-command.js";
import {
  INSIDE_CASES,
  OUTSIDE_CASES,
  UNKNOWN_TARGET_CASES,
  WORKSPACE,
  type DestructionCase,
} from "./destruction-cases.js";

const EXPECTED_DECISION = {
  dangerous: "rejected",
  unparseable: "needs_confirmation",
  not_allowlisted: "approved",
} as const;

describe.each([
  ["aimed outside the workspace are refused", OUTSIDE_CASES],
  ["whose targets are not known make `auto` ask", UNKNOWN_TARGET_CASES],
  ["inside the workspace still run", INSIDE_CASES],
] as const)("deletions and writes %s", (_label, testCases: readonly DestructionCase[]) => {
  it.each(testCases.map((testCase) => [JSON.stringify(testCase.command), testCase] as const))(
    "%s",
    async (_command, testCase) => {
      const decision = await evaluateCommand(testCase.command, {
        approvalMode: "auto",
        allowPrefixes: [],
        place: { workspaceRoot: WORKSPACE },
      });
      expect({ classification: decision.classification, decision: decision.decision }).toEqual({
        classification: testCase.classification,
        decision: EXPECTED_DECISION[testCase.classification as keyof typeof EXPECTED_DECISION],
      });
      for (const words of testCase.reason) {
        expect(decision.reason).toContain(words);
      }
    },
  );
});

describe("the folder a command starts in", () => {
  it("resolves relative targets against it, and its parent is outside", async () => {
    const judge = async (command: string, cwd: string) =>
      (
        await evaluateCommand(command, {
          approvalMode: "auto",
          allowPrefixes: [],
          place: { workspaceRoot: WORKSPACE, cwd },
        })
      ).classification;
    expect(await judge("rm -rf ../x", `${WORKSPACE}/src`)).toBe("not_allowlisted");
    expect(await judge("rm -rf ../../x", `${WORKSPACE}/src`)).toBe("dangerous");
    expect(await judge("git status", `${WORKSPACE}/src`)).toBe("not_allowlisted");
    expect(await judge("git status", WORKSPACE)).toBe("safe");
  });
});
