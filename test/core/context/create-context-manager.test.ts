import { describe, it, expect, beforeEach, afterEach } from "@jest/globals";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createContextManager } from "../../../src/core/context/create-context-manager.js";
import { createPinnedFacts } from "../../../src/core/context/create-pinned-facts.js";
import { createTokenCounter } from "../../../src/core/context/create-token-counter.js";
import type { Compactor } from "../../../src/core/context/create-model-compactor.js";
import { ContextError } from "../../../src/core/context/context-error.js";
import { PRUNED_MARKER } from "../../../src/core/context/prune-observations.js";
import { SUMMARY_PREFIX, DROPPED_PREFIX } from "../../../src/core/context/compact-history.js";
import { validateTranscript } from "../../../src/core/context/validate-transcript.js";
import { errorResult, okResult } from "../../../src/core/tools/tool-result.js";
import type { ChatMessage } from "../../../src/core/model/model-types.js";
import { buildToolHistory, filler } from "./transcript-fixtures.js";

const counter = createTokenCounter("gpt-4o");
const SYSTEM = "You are a careful coding agent.";
const usage = { promptTokens: 100, completionTokens: 20, totalTokens: 120 };

function recordingCompactor(
  summary = "Read files f0..f5; nothing changed yet.",
): Compactor & { calls: ChatMessage[][] } {
  const calls: ChatMessage[][] = [];
  return {
    calls,
    async summarize(messages) {
      calls.push([...messages]);
      return { summary, usage, costUsd: 0.0012 };
    },
  };
}

let scratchDir: string;
beforeEach(async () => {
  scratchDir = await mkdtemp(path.join(os.tmpdir(), "agentforge-context-"));
});
afterEach(async () => {
  await rm(scratchDir, { recursive: true, force: true });
});

describe("createContextManager.prepare", () => {
  it("changes nothing under the warning line and sends system prompt, ledger and history", async () => {
    const manager = createContextManager({ windowTokens: 100_000, counter });
    const facts = createPinnedFacts("Do the task.");
    const history = buildToolHistory(3, 200);
    const result = await manager.prepare({ systemPrompt: SYSTEM, tools: [], history, facts });
    expect(result.events).toEqual([]);
    expect(result.status).toBe("ok");
    expect(result.history).toEqual(history);
    expect(result.history.every((message, index) => message === history[index])).toBe(true);
    expect(result.messages[0]).toEqual({ role: "system", content: SYSTEM });
    expect(result.messages[1]?.content).toContain("Do the task.");
    expect(result.messages.slice(2)).toEqual(history);
    expect(result.tokens.total).toBe(counter.countMessages(result.messages));
    const parts = result.tokens.byPart;
    expect(
      parts.systemPrompt + parts.toolSchemas + parts.pinnedFacts + parts.history + parts.observations,
    ).toBe(result.tokens.total);
    expect(parts.observations).toBeGreaterThan(3 * 150);
  });

  it("warns once when crossing the warning line, without rewriting", async () => {
    const manager = createContextManager({ windowTokens: 4_000, reserveOutputTokens: 0, counter });
    const facts = createPinnedFacts("Do the task.");
    const history = buildToolHistory(4, 700);
    const total = manager.measure({ systemPrompt: SYSTEM, tools: [], history, facts }).total;
    expect(total).toBeGreaterThanOrEqual(manager.budget.warnTokens);
    expect(total).toBeLessThan(manager.budget.compactTokens);
    const first = await manager.prepare({ systemPrompt: SYSTEM, tools: [], history, facts });
    expect(first.events).toEqual([{ type: "context-warning", usedTokens: total, windowTokens: 4_000 }]);
    expect(first.history).toEqual(history);
    const second = await manager.prepare({ systemPrompt: SYSTEM, tools: [], history, facts });
    expect(second.events).toEqual([]);
  });

  it("prunes old outputs to stubs that name the call, its outcome and the saved full output", async () => {
    const manager = createContextManager({
      windowTokens: 6_000,
      reserveOutputTokens: 0,
      counter,
      scratchDir,
      protectRecentObservations: 2,
    });
    const facts = createPinnedFacts("Do the task.");
    const history = buildToolHistory(8, 600);
    manager.recordToolResult("call_0", okResult("x", { summary: "read" }));
    manager.recordToolResult(
      "call_1",
      errorResult("FILE_NOT_FOUND", {
        message: "no such file",
        recovery_hint: "list",
        next_actions: ["list_dir"],
      }),
    );
    const result = await manager.prepare({ systemPrompt: SYSTEM, tools: [], history, facts });
    const pruned = result.events.find((event) => event.type === "context-pruned");
    expect(pruned).toBeDefined();
    expect(result.events.some((event) => event.type === "context-compacted")).toBe(false);
    expect(result.tokens.total).toBeLessThanOrEqual(manager.budget.warnTokens);
    expect(validateTranscript(result.messages)).toEqual({ success: true, value: true });
    const stubs = result.history.filter(
      (message) => message.role === "tool" && message.content.startsWith(PRUNED_MARKER),
    );
    expect(stubs.length).toBe(pruned?.type === "context-pruned" ? pruned.prunedCount : -1);
    const first = result.history[2];
    expect(first?.role === "tool" && first.content).toMatch(
      /read_file \{"path":"src\/f0.ts"\} → ok; [\d,]+ chars, [\d,]+ tokens/,
    );
    const second = result.history[4];
    expect(second?.role === "tool" && second.content).toContain("→ error FILE_NOT_FOUND");
    // The full output went to the scratch folder, private to the run, and the stub says where.
    const saved = /kept at (\S+) for the run record/.exec(first?.content ?? "")?.[1];
    expect(saved?.startsWith(scratchDir)).toBe(true);
    expect(await readFile(saved ?? "", "utf8")).toBe(history[2]?.content);
    expect((await stat(saved ?? "")).mode & 0o777).toBe(0o600);
    // The two most recent outputs stay verbatim.
    expect(result.history.slice(-3)).toEqual(history.slice(-3));
  });

  it("keeps a path the output already names instead of writing it again", async () => {
    const manager = createContextManager({
      windowTokens: 2_500,
      reserveOutputTokens: 0,
      counter,
      protectRecentObservations: 1,
    });
    const facts = createPinnedFacts("g");
    const history = buildToolHistory(4, 600);
    const first = history[2];
    if (first?.role !== "tool") throw new Error("fixture shape");
    history[2] = { ...first, content: `${first.content}\nFull output saved to /tmp/run-1/out-0.txt.` };
    const result = await manager.prepare({ systemPrompt: SYSTEM, tools: [], history, facts });
    expect(result.history[2]?.content).toContain("Full output at /tmp/run-1/out-0.txt.");
    expect(result.history[4]?.content).toContain("Re-run the tool to see it again.");
  });

  it("compacts older turns into one summary, keeping the latest turns verbatim and accounting for it", async () => {
    const compactor = recordingCompactor();
    const manager = createContextManager({
      windowTokens: 4_000,
      reserveOutputTokens: 0,
      counter,
      compactor,
      keepRecentTurns: 2,
      protectRecentObservations: 1,
    });
    const facts = createPinnedFacts("Do the task.");
    // Many turns with small outputs: pruning cannot help, only compaction can.
    const history: ChatMessage[] = [{ role: "user", content: "Do the task." }];
    for (let turn = 0; turn < 40; turn += 1) {
      history.push({ role: "assistant", content: `Thinking about step ${turn}: ${filler(60, `a${turn}`)}` });
      history.push({ role: "user", content: `Continue with ${turn}.` });
    }
    const result = await manager.prepare({ systemPrompt: SYSTEM, tools: [], history, facts });
    const compacted = result.events.find((event) => event.type === "context-compacted");
    expect(compacted).toMatchObject({ type: "context-compacted" });
    expect(result.compactionUsage).toEqual({ ...usage, costUsd: 0.0012 });
    expect(result.history[0]?.content).toBe(`${SUMMARY_PREFIX}\nRead files f0..f5; nothing changed yet.`);
    // Kept: the user message that prompted the older of the two turns, then both turns.
    expect(result.history.slice(1)).toEqual(history.slice(-5));
    expect(compactor.calls[0]).toEqual(history.slice(0, -5));
    expect(result.status).toBe("ok");
    expect(validateTranscript(result.messages).success).toBe(true);
    expect(result.messages[1]?.content).toContain("Do the task.");
  });

  it("never separates a call from its results when compacting parallel calls", async () => {
    const compactor = recordingCompactor();
    const manager = createContextManager({
      windowTokens: 3_000,
      reserveOutputTokens: 0,
      counter,
      compactor,
      keepRecentTurns: 1,
      protectRecentObservations: 3,
    });
    const facts = createPinnedFacts("g");
    const history: ChatMessage[] = [{ role: "user", content: "g" }];
    for (let turn = 0; turn < 12; turn += 1) {
      const ids = [`c${turn}a`, `c${turn}b`, `c${turn}c`];
      history.push({
        role: "assistant",
        content: filler(40, `t${turn}`),
        tool_calls: ids.map((id) => ({ id, type: "function", function: { name: "grep", arguments: "{}" } })),
      });
      for (const id of ids) history.push({ role: "tool", tool_call_id: id, content: filler(50, id) });
    }
    const result = await manager.prepare({ systemPrompt: SYSTEM, tools: [], history, facts });
    expect(validateTranscript(result.messages)).toEqual({ success: true, value: true });
    expect(result.history.slice(1)).toEqual(history.slice(-4));
    expect(compactor.calls).toHaveLength(1);
    expect(compactor.calls[0]?.at(-1)?.role).toBe("tool");
  });

  it("falls back to pruning hard and dropping the oldest turns when the compactor throws", async () => {
    const compactor: Compactor = {
      async summarize() {
        throw new ContextError("CONTEXT_COMPACTION_FAILED", "model unavailable");
      },
    };
    const manager = createContextManager({
      windowTokens: 3_000,
      reserveOutputTokens: 0,
      counter,
      compactor,
      keepRecentTurns: 2,
      protectRecentObservations: 1,
    });
    const facts = createPinnedFacts("Do the task.");
    const history: ChatMessage[] = [{ role: "user", content: "Do the task." }];
    for (let turn = 0; turn < 50; turn += 1) {
      history.push({ role: "assistant", content: `Step ${turn}: ${filler(60, `s${turn}`)}` });
      history.push({ role: "user", content: "go on" });
    }
    const result = await manager.prepare({ systemPrompt: SYSTEM, tools: [], history, facts });
    expect(result.compactionFailed).toEqual({
      message: "model unavailable",
      code: "CONTEXT_COMPACTION_FAILED",
    });
    expect(result.notes.join("\n")).toContain("compaction failed");
    expect(result.history[0]?.content?.startsWith(DROPPED_PREFIX)).toBe(true);
    expect(result.events.some((event) => event.type === "context-pruned")).toBe(true);
    expect(result.tokens.total).toBeLessThan(manager.budget.compactTokens);
    expect(result.history.slice(-4)).toEqual(history.slice(-4));
    expect(result.compactionUsage).toBeUndefined();
    expect(validateTranscript(result.messages).success).toBe(true);
  });

  it("prunes recent outputs instead of paying for a summary that could not free enough", async () => {
    const compactor = recordingCompactor();
    const manager = createContextManager({
      windowTokens: 5_000,
      reserveOutputTokens: 0,
      counter,
      compactor,
      keepRecentTurns: 3,
      protectRecentObservations: 3,
    });
    const facts = createPinnedFacts("g");
    const history = buildToolHistory(4, 1_500);
    // Only the first turn is older than the kept three, and its output alone is not the problem.
    const result = await manager.prepare({ systemPrompt: SYSTEM, tools: [], history, facts });
    expect(compactor.calls).toHaveLength(0);
    expect(result.events.some((event) => event.type === "context-compacted")).toBe(false);
    expect(result.tokens.total).toBeLessThanOrEqual(manager.budget.warnTokens);
    // The newest output has not been read by the model yet and stays whole.
    expect(result.history.at(-1)).toBe(history.at(-1));
    expect(result.history[4]?.content).toContain(PRUNED_MARKER);
    expect(validateTranscript(result.messages).success).toBe(true);
  });

  it("reports overflow when even the newest, unseen output does not fit", async () => {
    const manager = createContextManager({
      windowTokens: 2_000,
      reserveOutputTokens: 0,
      counter,
      compactor: recordingCompactor(),
    });
    const facts = createPinnedFacts("g");
    const history = buildToolHistory(1, 3_000);
    const result = await manager.prepare({ systemPrompt: SYSTEM, tools: [], history, facts });
    expect(result.status).toBe("overflow");
    // The model never saw that output: it is not replaced by a stub behind its back.
    expect(result.history).toEqual(history);
  });

  it("refuses to start when already cancelled, and turns a cancelled compaction into CONTEXT_CANCELLED", async () => {
    const controller = new AbortController();
    const compactor: Compactor = {
      async summarize() {
        controller.abort();
        throw new Error("aborted");
      },
    };
    const manager = createContextManager({
      windowTokens: 3_000,
      reserveOutputTokens: 0,
      counter,
      compactor,
      keepRecentTurns: 1,
    });
    const facts = createPinnedFacts("g");
    const history: ChatMessage[] = [{ role: "user", content: "g" }];
    for (let turn = 0; turn < 20; turn += 1)
      history.push({ role: "assistant", content: filler(120, `x${turn}`) }, { role: "user", content: "go" });
    await expect(
      manager.prepare({ systemPrompt: SYSTEM, tools: [], history, facts, signal: controller.signal }),
    ).rejects.toMatchObject({
      code: "CONTEXT_CANCELLED",
    });
    await expect(
      manager.prepare({ systemPrompt: SYSTEM, tools: [], history, facts, signal: controller.signal }),
    ).rejects.toBeInstanceOf(ContextError);
  });

  it("rejects bad options with a coded error", () => {
    expect(() => createContextManager({ windowTokens: 8_000, counter, keepRecentTurns: 0 })).toThrow(
      /keepRecentTurns/,
    );
    expect(() =>
      createContextManager({ windowTokens: 8_000, counter, thresholds: { hardStop: 1.5 } }),
    ).toThrow(ContextError);
  });
});
