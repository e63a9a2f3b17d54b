import { describe, it, expect } from "@jest/globals";
import { createPinnedFacts, pinnedFactsFromJSON } from "../../../src/core/context/create-pinned-facts.js";
import { errorResult, okResult } from "../../../src/core/tools/tool-result.js";

const GOAL = "Fix the flaky test in test/queue.test.ts.\nKeep the retry count at 3 — exactly as it is.";

function readResult(path: string) {
  return okResult("contents", { summary: `read ${path}`, metadata: { kind: "file-read", path } });
}

function shellResult(command: string, exitCode: number, timedOut = false) {
  const metadata = { command, exitCode, timedOut };
  return exitCode === 0 && !timedOut
    ? okResult("ok", { summary: "ran", metadata })
    : errorResult(timedOut ? "COMMAND_TIMEOUT" : "COMMAND_FAILED", {
        message: `${command} exited with ${exitCode}`,
        recovery_hint: "read the output",
        next_actions: ["read the output"],
        metadata,
      });
}

describe("createPinnedFacts", () => {
  it("keeps the goal verbatim however long it is", () => {
    const longGoal = `${GOAL}\n${"Details that matter. ".repeat(500)}`;
    const facts = createPinnedFacts(longGoal);
    expect(facts.render()).toContain(longGoal);
  });

  it("records files read and changed from the tools' metadata, deduplicated", () => {
    const facts = createPinnedFacts(GOAL);
    facts.observeToolCall("read_file", { path: "a.ts" }, readResult("a.ts"));
    facts.observeToolCall("read_file", { path: "b.ts" }, readResult("b.ts"));
    facts.observeToolCall("read_file", { path: "a.ts" }, readResult("a.ts"));
    facts.observeToolCall(
      "write_file",
      { path: "c.ts" },
      okResult("wrote", {
        summary: "wrote",
        artifacts: ["c.ts"],
        metadata: { kind: "file-write", path: "c.ts" },
      }),
    );
    facts.observeToolCall(
      "edit_file",
      { path: "d.ts" },
      okResult("edited", { summary: "edited", metadata: { kind: "file-edit", path: "d.ts" } }),
    );
    const data = facts.snapshot();
    expect(data.filesRead).toEqual(["b.ts", "a.ts"]);
    expect(data.filesChanged).toEqual(["c.ts", "d.ts"]);
    expect(data.artifacts).toEqual(["c.ts"]);
    const ledger = facts.render();
    expect(ledger).toContain("Files read (2): b.ts, a.ts");
    expect(ledger).toContain("Files changed (2): c.ts, d.ts");
    // c.ts is already listed as changed; the artifact line would only repeat it.
    expect(ledger).not.toContain("Artifacts");
  });

  it("records commands with their latest outcome and failures with error type and message", () => {
    const facts = createPinnedFacts(GOAL);
    facts.observeToolCall("run_shell", { command: "npm test" }, shellResult("npm test", 1));
    facts.observeToolCall("run_shell", { command: "npm test" }, shellResult("npm test", 0));
    facts.observeToolCall("run_shell", { command: "sleep 99" }, shellResult("sleep 99", 137, true));
    facts.observeToolCall(
      "edit_file",
      { path: "a.ts", old_string: "x" },
      errorResult("EDIT_NO_MATCH", {
        message: "old_string not found",
        recovery_hint: "re-read",
        next_actions: ["read_file a.ts"],
      }),
    );
    const data = facts.snapshot();
    expect(data.commands).toEqual([
      { command: "npm test", runs: 2, failures: 1, lastExitCode: 0, lastOk: true, lastTimedOut: false },
      { command: "sleep 99", runs: 1, failures: 1, lastExitCode: 137, lastOk: false, lastTimedOut: true },
    ]);
    expect(data.failures.map((fact) => [fact.tool, fact.errorType, fact.target])).toEqual([
      ["run_shell", "COMMAND_FAILED", "npm test"],
      ["run_shell", "COMMAND_TIMEOUT", "sleep 99"],
      ["edit_file", "EDIT_NO_MATCH", "a.ts"],
    ]);
    const ledger = facts.render();
    expect(ledger).toContain("`npm test` → exit 0 (ok), 2 runs, 1 failed");
    expect(ledger).toContain("`sleep 99` → timed out");
    expect(ledger).toContain("edit_file a.ts: EDIT_NO_MATCH: old_string not found");
  });

  it("stays bounded on a very long run while counting what it no longer lists", () => {
    const facts = createPinnedFacts(GOAL);
    for (let index = 0; index < 2_000; index += 1) {
      facts.observeToolCall("run_shell", {}, shellResult(`echo ${index}`, index % 10 === 0 ? 1 : 0));
      facts.observeToolCall("read_file", {}, readResult(`src/file-${index}.ts`));
    }
    const ledger = facts.render();
    expect(ledger.length).toBeLessThan(6_000);
    expect(ledger).toContain("Commands run (2000 runs, 2000 distinct");
    expect(ledger).toContain("echo 1999");
    expect(ledger).toMatch(/\+1988 earlier commands: 1988 runs, \d+ failed/);
    expect(ledger).toContain("Files read (500)");
    expect(JSON.stringify(facts.toJSON()).length).toBeLessThan(60_000);
  });

  it("tracks plan steps done and remaining, keeping done marks across a re-plan", () => {
    const facts = createPinnedFacts(GOAL);
    facts.setPlan(["reproduce", "fix", "test"]);
    expect(facts.completeStep(0)).toBe(true);
    expect(facts.completeStep(7)).toBe(false);
    expect(facts.render()).toContain(
      "Plan: 1 of 3 steps done\n  [x] 1. reproduce\n  [ ] 2. fix\n  [ ] 3. test",
    );
    facts.setPlan(["reproduce", "write a failing test", "fix", "test"]);
    expect(facts.snapshot().plan.map((step) => step.done)).toEqual([true, false, false, false]);
  });

  it("round-trips through JSON and refuses a newer schema version by name", () => {
    const facts = createPinnedFacts(GOAL);
    facts.observeToolCall("read_file", { path: "a.ts" }, readResult("a.ts"));
    facts.setPlan(["one"]);
    const json: unknown = JSON.parse(JSON.stringify(facts));
    const restored = pinnedFactsFromJSON(json);
    expect(restored.success).toBe(true);
    if (restored.success) {
      expect(restored.value.render()).toBe(facts.render());
      restored.value.observeToolCall("read_file", { path: "b.ts" }, readResult("b.ts"));
      expect(facts.snapshot().filesRead).toEqual(["a.ts"]);
    }
    const newer = pinnedFactsFromJSON({ ...(json as object), version: 99 });
    expect(newer.success).toBe(false);
    if (!newer.success) expect(newer.error).toMatch(/version 99, newer than the supported 1/);
    const broken = pinnedFactsFromJSON({ goal: 5 });
    expect(broken.success).toBe(false);
  });

  it("hands out the same serialised facts and ledger until something changes, then fresh ones", () => {
    const facts = createPinnedFacts(GOAL);
    const first = facts.toJSON();
    const ledger = facts.render();
    const revision = facts.revision;
    expect(facts.toJSON()).toBe(first);
    expect(facts.render()).toBe(ledger);
    const changes: (() => void)[] = [
      () => facts.observeToolCall("read_file", { path: "a.ts" }, readResult("a.ts")),
      () => facts.setPlan(["one", "two"]),
      () => facts.completeStep(1),
      () => facts.addArtifact("out/report.txt"),
    ];
    let previous = first;
    let previousLedger = ledger;
    let previousRevision = revision;
    for (const change of changes) {
      change();
      expect(facts.revision).toBeGreaterThan(previousRevision);
      const next = facts.toJSON();
      expect(next).not.toBe(previous);
      expect(next).toEqual(facts.snapshot());
      expect(facts.render()).not.toBe(previousLedger);
      [previous, previousLedger, previousRevision] = [next, facts.render(), facts.revision];
    }
    // A completeStep outside the plan changes nothing and keeps the cached copies.
    expect(facts.completeStep(9)).toBe(false);
    expect(facts.toJSON()).toBe(previous);
    // The cached copy is not the live data: a later change does not leak into it.
    facts.observeToolCall("read_file", { path: "b.ts" }, readResult("b.ts"));
    expect(previous.filesRead).toEqual(["a.ts"]);
    // Other render options are rendered, not served from the cache of the defaults.
    expect(facts.render({ maxFilesRead: 1 })).not.toBe(facts.render());
  });
  it("moves its revision only when a call changes the facts", () => {
    const facts = createPinnedFacts(GOAL);
    facts.observeToolCall("read_file", { path: "a.ts" }, readResult("a.ts"));
    facts.observeToolCall("read_file", { path: "b.ts" }, readResult("b.ts"));
    const json = facts.toJSON();
    const revision = facts.revision;
    // Reading the file read last again: same facts, same copies.
    facts.observeToolCall("read_file", { path: "b.ts" }, readResult("b.ts"));
    expect(facts.revision).toBe(revision);
    expect(facts.toJSON()).toBe(json);
    // Reading an older one moves it to the end: a change.
    facts.observeToolCall("read_file", { path: "a.ts" }, readResult("a.ts"));
    expect(facts.revision).toBeGreaterThan(revision);
    expect(facts.toJSON().filesRead).toEqual(["b.ts", "a.ts"]);
    // A failure is counted every time, even the same one.
    const failed = {
      ok: false,
      status: "error",
      output: "",
      summary: "",
      artifacts: [],
      next_actions: [],
      error: { error_type: "FILE_NOT_FOUND", message: "no x.ts", recoverable: true },
    } as const;
    facts.observeToolCall("read_file", { path: "x.ts" }, failed);
    const afterFailure = facts.revision;
    facts.observeToolCall("read_file", { path: "x.ts" }, failed);
    expect(facts.revision).toBeGreaterThan(afterFailure);
    expect(facts.toJSON().failures[0]?.count).toBe(2);
  });
});
