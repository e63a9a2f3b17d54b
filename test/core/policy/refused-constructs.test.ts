import { describe, expect, it } from "@jest/globals";
import { evaluateCommand } from "../../../src/core/policy/evaluate-command.js";
import {
  APPROVED_CASES,
  EVALUATING_BUILTIN_CASES,
  EVALUATION_CASES,
  MISREAD_CASES,
  PREFIX_CASES,
  SUBSCRIPT_CASES,
  WRITING_OPTION_CASES,
  type ConstructCase,
} from "./construct-cases.js";
import {
  CONTINUATION_CASES,
  DESCRIPTOR_LINK_CASES,
  ENVIRONMENT_REMOVAL_CASES,
  NEAR_MISS_CASES,
} from "./red-team-cases.js";

const GROUPS: readonly (readonly [string, readonly ConstructCase[]])[] = [
  ["array subscripts evaluated as arithmetic", SUBSCRIPT_CASES],
  ["arithmetic, references and transformations", EVALUATION_CASES],
  ["builtins that run text as code", EVALUATING_BUILTIN_CASES],
  ["where tree-sitter and bash read a line differently", MISREAD_CASES],
  ["options and operands that write or run programs", WRITING_OPTION_CASES],
  ["allow prefixes", PREFIX_CASES],
  ["the approved subset", APPROVED_CASES],
  ["a line that is only a line continuation", CONTINUATION_CASES],
  ["writes through a descriptor link", DESCRIPTOR_LINK_CASES],
  ["variables removed from the sandbox's environment", ENVIRONMENT_REMOVAL_CASES],
  ["near misses that stay approved", NEAR_MISS_CASES],
];

describe.each(GROUPS)("the judge in `never`: %s", (_group, testCases) => {
  it.each(testCases.map((testCase) => [JSON.stringify(testCase.command), testCase] as const))(
    "%s",
    async (_label, testCase) => {
      const decision = await evaluateCommand(testCase.command, {
        approvalMode: "never",
        allowPrefixes: ["npm test"],
        place: { workspaceRoot: "/work/ws" },
      });
      expect({ classification: decision.classification, decision: decision.decision }).toEqual({
        classification: testCase.classification,
        decision:
          testCase.classification === "safe" || testCase.classification === "allowlisted"
            ? "approved"
            : "rejected",
      });
      for (const words of testCase.reason) {
        expect(decision.reason).toContain(words);
      }
    },
  );
});

describe("reasons", () => {
  it("name the construct, as in the policy's own example", async () => {
    const decision = await evaluateCommand("test -v 'a[$(id)]'", {
      approvalMode: "never",
      allowPrefixes: [],
    });
    expect(decision.reason).toBe(
      "`test -v 'a[$(id)]'` evaluates the array subscript `$(id)` in `-v 'a[$(id)]'` as arithmetic, which runs commands; approval mode `never` refuses it",
    );
    expect(decision.suggestion).toContain("$( … )");
  });
});
