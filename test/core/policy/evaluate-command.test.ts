import { describe, expect, it } from "@jest/globals";
import type { ApprovalMode } from "../../../src/core/policy/approval-mode.js";
import { evaluateCommand } from "../../../src/core/policy/evaluate-command.js";
import { ALL_CASES, CASE_ALLOW_PREFIXES, type CommandCase } from "./command-cases.js";

function expectations(testCase: CommandCase): [ApprovalMode, string][] {
  return Object.entries(testCase.decisions) as [ApprovalMode, string][];
}

describe("evaluateCommand on the command table", () => {
  it("has a large table with every classification and at least two modes per case", () => {
    expect(ALL_CASES.length).toBeGreaterThanOrEqual(170);
    for (const testCase of ALL_CASES) {
      expect(expectations(testCase).length).toBeGreaterThanOrEqual(2);
    }
    expect(new Set(ALL_CASES.map((testCase) => testCase.classification)).size).toBe(5);
  });

  it.each(ALL_CASES.map((testCase) => [JSON.stringify(testCase.command), testCase] as const))(
    "%s",
    async (_label, testCase) => {
      for (const [mode, expected] of expectations(testCase)) {
        const decision = await evaluateCommand(testCase.command, {
          approvalMode: mode,
          allowPrefixes: CASE_ALLOW_PREFIXES,
        });
        expect({
          mode,
          classification: decision.classification,
          decision: decision.decision,
          reason: decision.reason,
        }).toEqual({
          mode,
          classification: testCase.classification,
          decision: expected,
          reason: expect.any(String),
        });
      }
    },
  );
});

describe("evaluateCommand reasons and parts", () => {
  const never = { approvalMode: "never", allowPrefixes: ["npm test"] } as const;

  it("names the refused part, its position and the whole command, with a suggestion", async () => {
    const decision = await evaluateCommand("git status ; rm -rf build", never);
    expect(decision.decision).toBe("rejected");
    expect(decision.reason).toContain(
      "`rm -rf build` (part 2 of `git status ; rm -rf build`) is not on the read-only allowlist or the allowed prefixes",
    );
    expect(decision.suggestion).toMatch(/read-only command.*prefix/);
    expect(decision.parts.map((part) => [part.command, part.classification])).toEqual([
      ["git status", "safe"],
      ["rm -rf build", "not_allowlisted"],
    ]);
    expect(decision.parts[1]?.words).toEqual(["rm", "-rf", "build"]);
  });

  it("lists the commands of substitutions as their own parts", async () => {
    const decision = await evaluateCommand('echo "$(rm -rf src)" $(id)', never);
    expect(decision.parts.map((part) => part.command)).toEqual([
      "rm -rf src",
      "id",
      'echo "$(rm -rf src)" $(id)',
    ]);
  });

  it("judges a command string run by bash -c part by part", async () => {
    const decision = await evaluateCommand("bash -c 'ls; npm test; rm -rf /'", never);
    expect(decision.parts.map((part) => part.classification)).toEqual(["safe", "allowlisted", "dangerous"]);
    expect(decision.reason).toContain("in the command string run by `bash -c`");
  });

  it("gives no suggestion when approved and says why in every mode", async () => {
    const approved = await evaluateCommand("npm test -- -t x", never);
    expect(approved.suggestion).toBeUndefined();
    expect(approved.reason).toContain("matches the allowed prefix `npm test`");
    const asked = await evaluateCommand("rm x", { approvalMode: "on-request", allowPrefixes: [] });
    expect(asked.reason).toContain("approval mode `on-request` asks a person first");
  });

  it("compares prefixes on words, not on text", async () => {
    const prefixes = ["npm test", "pytest -q"];
    const judge = async (command: string): Promise<string> =>
      (await evaluateCommand(command, { approvalMode: "never", allowPrefixes: prefixes })).classification;
    expect(await judge("npm test")).toBe("allowlisted");
    expect(await judge("npm   test   --watch=false")).toBe("allowlisted");
    expect(await judge("npm testx")).toBe("not_allowlisted");
    expect(await judge("npm 'test x'")).toBe("not_allowlisted");
    expect(await judge("pytest -qq")).toBe("not_allowlisted");
    expect(await judge("T=test; npm $T")).toBe("not_allowlisted");
    expect(await judge("npm ~")).toBe("not_allowlisted");
  });

  it("ignores prefixes that are not plain words instead of matching them as text", async () => {
    const decision = await evaluateCommand("npm test", {
      approvalMode: "never",
      allowPrefixes: ["npm test; rm -rf /", "$X", ""],
    });
    expect(decision.classification).toBe("not_allowlisted");
  });

  it("refuses a command line too long to judge without parsing it", async () => {
    const started = performance.now();
    const decision = await evaluateCommand("ls; ".repeat(5000), never);
    expect(decision).toMatchObject({ decision: "rejected", classification: "unparseable" });
    expect(decision.reason).toContain("too long to judge");
    expect(performance.now() - started).toBeLessThan(200);
  });

  it("stays finite on deeply nested substitutions", async () => {
    const nested = `echo ${"$(".repeat(600)}ls${")".repeat(600)}`;
    const decision = await evaluateCommand(nested, never);
    expect(decision.classification).toBe("unparseable");
    expect(decision.reason.length).toBeLessThan(1000);
  });

  it("decides a typical command in well under a millisecond once the parser is loaded", async () => {
    const commands = [
      "git status",
      "ls -la src",
      "grep -rn foo src | wc -l",
      "npm test -- -t x",
      "git status ; rm -rf build",
    ];
    // Warm up: the first calls load the grammar and let the JIT compile the walker.
    for (let round = 0; round < 100; round += 1) {
      for (const command of commands) {
        await evaluateCommand(command, never);
      }
    }
    // The fastest of several batches: other processes on a shared machine only ever slow a batch down.
    const batchTimes: number[] = [];
    for (let batch = 0; batch < 8; batch += 1) {
      const started = performance.now();
      for (let round = 0; round < 20; round += 1) {
        for (const command of commands) {
          await evaluateCommand(command, never);
        }
      }
      batchTimes.push((performance.now() - started) / (20 * commands.length));
    }
    const perCommandMs = Math.min(...batchTimes);
    process.stdout.write(
      `evaluateCommand: ${(perCommandMs * 1000).toFixed(0)} µs per command (fastest batch)\n`,
    );
    expect(perCommandMs).toBeLessThan(1);
  });
});
