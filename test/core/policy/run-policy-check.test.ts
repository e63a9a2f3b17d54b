import { describe, expect, it } from "@jest/globals";
import { runPolicyCheck } from "../../../src/core/policy/run-policy-check.js";

describe("runPolicyCheck", () => {
  it("exits 0 for an approved command and prints the decision as JSON-ready data", async () => {
    const result = await runPolicyCheck({ command: ["git", "status"], approvalMode: "never" });
    expect(result.exitCode).toBe(0);
    expect(result.json).toMatchObject({
      decision: "approved",
      classification: "safe",
      approval_mode: "never",
    });
    expect(JSON.parse(JSON.stringify(result.json))).toEqual(result.json);
  });

  it("exits 1 for a refused command and 2 when a person must confirm", async () => {
    const refused = await runPolicyCheck({ command: "rm -rf build", approvalMode: "never" });
    expect(refused.exitCode).toBe(1);
    expect(refused.json.suggestion).toBeDefined();
    const asked = await runPolicyCheck({ command: "rm -rf build", approvalMode: "on-request" });
    expect(asked.exitCode).toBe(2);
    expect(asked.json.decision).toBe("needs_confirmation");
  });

  it("joins argv words with spaces, so shell operators in them are judged", async () => {
    const result = await runPolicyCheck({ command: ["git", "status", ";", "rm", "-rf", "build"] });
    expect(result.json.approval_mode).toBe("never");
    expect(result.json.parts.map((part) => part.command)).toEqual(["git status", "rm -rf build"]);
    expect(result.exitCode).toBe(1);
  });

  it("uses the allowed prefixes it is given", async () => {
    const result = await runPolicyCheck({ command: ["npm", "test"], allowPrefixes: ["npm test"] });
    expect(result.json.classification).toBe("allowlisted");
    expect(result.exitCode).toBe(0);
  });
});

describe("runPolicyCheck without a workspace", () => {
  it("judges paths against the current directory", async () => {
    // Climbed from wherever the checkout is (under /tmp, `..` alone may be scratch space): /usr/x.
    const outside = await runPolicyCheck({
      command: `rm -rf ${"../".repeat(16)}usr/x`,
      approvalMode: "auto",
    });
    expect(outside.json).toMatchObject({ classification: "dangerous", decision: "rejected" });
    const inside = await runPolicyCheck({ command: "rm -rf build", approvalMode: "auto" });
    expect(inside.json).toMatchObject({ classification: "not_allowlisted", decision: "approved" });
  });
});
