import { describe, expect, it } from "@jest/globals";
import {
  closingDecision,
  renderPullRequestBody,
  type PullRequestBodyOptions,
} from "../../../../src/doors/github/pull-request/render-pull-request-body.js";

const BASE: PullRequestBodyOptions = {
  summary: "Fixed `add` for negative numbers; the sign was dropped.",
  plan: "1. Read src/add.js\n2. Fix\n3. Test",
  filesChanged: [{ path: "src/add.js", additions: 3, deletions: 1 }, "test/add.test.js"],
  commands: [
    { command: "npm test", ok: false, exitCode: 1 },
    { command: "grep -n `x` src", ok: true, exitCode: 0 },
  ],
  tests: [{ command: "npm test", ok: true, exitCode: 0 }],
  tokens: { input: 12_000, output: 3_456 },
  costUsd: 0.01234,
  issueNumber: 12,
  exitReason: "final_answer",
  traceSummary: "9 turns, 14 tool calls",
};

describe("renderPullRequestBody", () => {
  it("lists every committed file and every left-out one with its reason, and the agent's commands when no test command ran", () => {
    const body = renderPullRequestBody({
      ...BASE,
      tests: [],
      committedFiles: [
        { path: "src/add.js", changedBy: "agent" },
        { path: "CHANGES.md", changedBy: "command" },
      ],
      leftOut: [{ path: "src/__pycache__/add.pyc", reason: "build output (matches `__pycache__/`)" }],
    });
    expect(body).toContain(
      "## Files changed\n\n- `src/add.js`\n- `CHANGES.md` (changed by a command the agent ran)",
    );
    expect(body).toContain(
      "## Left out of the commit\n\n- `src/__pycache__/add.pyc`: build output (matches `__pycache__/`)",
    );
    expect(body).toContain("The agent's last run of each command:\n\n- ❌ `npm test` (exit 1)");
    expect(body).not.toContain("No test command is configured");
  });

  it("says what changed, the plan, what ran with results, tokens and cost, and links the issue", () => {
    const body = renderPullRequestBody(BASE);
    expect(body).toContain("## Summary\n\nFixed `add` for negative numbers");
    expect(body).toContain("<details><summary>Plan</summary>");
    expect(body).toContain("- `src/add.js` (+3 −1)");
    expect(body).toContain("- `test/add.test.js`");
    expect(body).toContain("## Tests\n\n- ✅ `npm test` (exit 0)");
    expect(body).toContain("Commands run (2)");
    expect(body).toContain("- ❌ `npm test` (exit 1)");
    expect(body).toContain("``grep -n `x` src``");
    expect(body).toContain(
      "15,456 tokens (12,000 in, 3,456 out) · $0.0123 · ended with `final_answer` · 9 turns, 14 tool calls",
    );
    expect(body).toContain("Fixes #12");
    expect(body.trimEnd().endsWith("<!-- agentforge:issue=12 -->")).toBe(true);
  });

  it.each([
    [{ exitReason: "max_turns" as const }, "ended with `max_turns`"],
    [{ tests: [{ command: "npm test", ok: false, exitCode: 1 }] }, "a test command failed"],
    [{ tests: [] }, "configures no `test_commands`"],
  ])("only refers to the issue when the fix is not proven (%o)", (override, reason) => {
    const options = { ...BASE, ...override };
    expect(closingDecision(options).closes).toBe(false);
    const body = renderPullRequestBody(options);
    expect(body).not.toContain("Fixes #12");
    expect(body).toContain("Refs #12");
    expect(body).toContain(reason);
  });

  it("keeps model text from hiding content or forging the issue marker", () => {
    const body = renderPullRequestBody({
      ...BASE,
      summary: "done <!-- agentforge:issue=99 --> cc @octocat",
      tokens: 10,
      costUsd: null,
    });
    expect(body).not.toContain("agentforge:issue=99 -->");
    expect(body).not.toMatch(/(^|\s)@octocat/);
    expect(body).toContain("10 tokens · cost unknown");
  });
});
