import { describe, expect, it } from "@jest/globals";
import type { ChatMessage } from "../../../src/core/model/model-types.js";
import { INTERRUPTED_CALL_MESSAGE, planResume } from "../../../src/core/persistence/plan-resume.js";
import { okResult } from "../../../src/core/tools/tool-result.js";
import { makeCheckpoint, toolCall } from "./checkpoint-fixtures.js";

/** Every assistant tool call is answered exactly once, right after it, and no answer is orphaned. */
function unansweredCalls(history: readonly ChatMessage[]): string[] {
  const missing: string[] = [];
  history.forEach((message, index) => {
    if (message.role !== "assistant" || !message.tool_calls) return;
    const answered = new Set<string>();
    for (let next = index + 1; next < history.length; next += 1) {
      const candidate = history[next]!;
      if (candidate.role !== "tool") break;
      answered.add(candidate.tool_call_id);
    }
    for (const call of message.tool_calls) if (!answered.has(call.id)) missing.push(call.id);
  });
  return missing;
}

const calls = [
  toolCall("c1", "read_file"),
  toolCall("c2", "shell", { command: "npm test" }),
  toolCall("c3", "write_file"),
];
const base: ChatMessage[] = [
  { role: "user", content: "go" },
  { role: "assistant", content: null, tool_calls: calls },
];

describe("planResume", () => {
  it("leaves a consistent transcript alone", () => {
    const history: ChatMessage[] = [
      ...base,
      { role: "tool", tool_call_id: "c1", content: "a" },
      { role: "tool", tool_call_id: "c2", content: "b" },
      { role: "tool", tool_call_id: "c3", content: "c" },
      { role: "assistant", content: "done" },
    ];
    const plan = planResume(makeCheckpoint("r", { history }), { startedCallIds: new Set() });
    expect(plan).toEqual({ history, pendingCalls: [], reusedResults: [], interruptedCalls: [] });
  });

  it("reuses completed results, runs never-started calls, reports started ones as interrupted", () => {
    const result = okResult("file text", { summary: "read" });
    const checkpoint = makeCheckpoint("r", {
      history: base,
      completedToolCalls: { c1: { name: "read_file", result } },
    });
    const plan = planResume(checkpoint, { startedCallIds: new Set(["c1", "c2"]) });
    expect(plan.reusedResults).toEqual([{ callId: "c1", name: "read_file", result }]);
    expect(plan.pendingCalls).toEqual([calls[2]]);
    expect(plan.interruptedCalls).toHaveLength(1);
    const interrupted = plan.interruptedCalls[0]!;
    expect(interrupted.callId).toBe("c2");
    expect(interrupted.arguments).toBe(JSON.stringify({ command: "npm test" }));
    expect(interrupted.result.ok).toBe(false);
    expect(interrupted.result.error).toEqual({
      error_type: "INTERRUPTED",
      message: INTERRUPTED_CALL_MESSAGE,
      recoverable: true,
    });
    // c1 and c2 are answered in the history; c3 waits for the loop to execute it.
    expect(
      plan.history.slice(2).map((message) => (message.role === "tool" ? message.tool_call_id : message.role)),
    ).toEqual(["c1", "c2"]);
    expect(plan.history[2]).toEqual({ role: "tool", tool_call_id: "c1", content: JSON.stringify(result) });
    expect(plan.history[3]?.content).toContain("interrupted by a crash");
    expect(unansweredCalls(plan.history)).toEqual(["c3"]);
  });

  it("without a journal, treats every unanswered uncompleted call as interrupted: nothing is re-run", () => {
    const plan = planResume(makeCheckpoint("r", { history: base }));
    expect(plan.pendingCalls).toEqual([]);
    expect(plan.interruptedCalls.map((call) => call.callId)).toEqual(["c1", "c2", "c3"]);
    expect(unansweredCalls(plan.history)).toEqual([]);
  });

  it("keeps tool messages already in the history and fills only the missing ones", () => {
    const history: ChatMessage[] = [
      ...base,
      { role: "tool", tool_call_id: "c2", content: "ran before the save" },
    ];
    const plan = planResume(
      makeCheckpoint("r", {
        history,
        completedToolCalls: { c1: { name: "read_file", result: {}, content: "stored message" } },
      }),
      { startedCallIds: new Set(["c1", "c2"]) },
    );
    expect(plan.history.slice(2)).toEqual([
      { role: "tool", tool_call_id: "c2", content: "ran before the save" },
      { role: "tool", tool_call_id: "c1", content: "stored message" },
    ]);
    expect(plan.pendingCalls.map((call) => call.id)).toEqual(["c3"]);
    expect(plan.reusedResults.map((reused) => reused.callId)).toEqual(["c1"]);
  });

  it("never schedules a call of an earlier turn: a hole there is reported as interrupted", () => {
    const history: ChatMessage[] = [
      { role: "user", content: "go" },
      { role: "assistant", content: null, tool_calls: [toolCall("old", "shell")] },
      { role: "user", content: "continue" },
      { role: "assistant", content: null, tool_calls: [toolCall("new", "shell")] },
    ];
    const plan = planResume(makeCheckpoint("r", { history }), { startedCallIds: new Set() });
    expect(plan.interruptedCalls.map((call) => call.callId)).toEqual(["old"]);
    expect(plan.pendingCalls.map((call) => call.id)).toEqual(["new"]);
    expect(plan.history[2]).toMatchObject({ role: "tool", tool_call_id: "old" });
    expect(unansweredCalls(plan.history)).toEqual(["new"]);
  });

  it("uses the caller's renderer for interrupted calls", () => {
    const plan = planResume(makeCheckpoint("r", { history: base }), {
      renderResult: (name, result) => `<<${name}:${result.error?.error_type ?? "?"}>>`,
    });
    expect(plan.history.slice(2).map((message) => message.content)).toEqual([
      "<<read_file:INTERRUPTED>>",
      "<<shell:INTERRUPTED>>",
      "<<write_file:INTERRUPTED>>",
    ]);
  });

  it("a finished transcript (final answer last) has nothing to do", () => {
    const history: ChatMessage[] = [
      { role: "user", content: "hi" },
      { role: "assistant", content: "hello" },
    ];
    const plan = planResume(makeCheckpoint("r", { history, status: "finished" }), {
      startedCallIds: new Set(),
    });
    expect(plan.history).toEqual(history);
    expect(plan.pendingCalls).toEqual([]);
  });

  it("does not mutate the checkpoint", () => {
    const checkpoint = makeCheckpoint("r", { history: base });
    const before = JSON.stringify(checkpoint);
    planResume(checkpoint);
    expect(JSON.stringify(checkpoint)).toBe(before);
  });
});
