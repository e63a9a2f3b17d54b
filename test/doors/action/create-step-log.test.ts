import { describe, expect, it } from "@jest/globals";
import type { LoopEvent } from "../../../src/core/loop/index.js";
import { createRedactor } from "../../../src/core/safety/index.js";
import { errorResult, okResult } from "../../../src/core/tools/tool-result.js";
import { createStepLog } from "../../../src/doors/action/create-step-log.js";

const SECRET = "sk-steplog-9f8e7d6c5b4a3f2e1d0c";

function record(): { lines: string[]; info: (message: string) => void } {
  const lines: string[] = [];
  return { lines, info: (message) => lines.push(message) };
}

describe("createStepLog", () => {
  const redactor = createRedactor({ secrets: [SECRET] });
  const redact = (text: string): string => redactor.redact(text);

  it("redacts a secret before the line is cut, even where the cut would fall inside it", () => {
    const io = record();
    const log = createStepLog(io, redact);
    // The 100-character cut of the arguments falls in the middle of the key.
    const prefix = "x".repeat(100 - '{"command":"'.length - 10);
    log.onEvent({
      type: "tool-call-start",
      turn: 1,
      callId: "c1",
      name: "shell",
      arguments: JSON.stringify({ command: `${prefix}${SECRET}` }),
    });
    log.flush();
    expect(io.lines).toHaveLength(1);
    expect(io.lines[0]).not.toContain(SECRET.slice(0, 10));
    expect(io.lines[0]).toContain("[REDACTED");
  });

  it("names the tool of each outcome when calls of one answer ran together, and says an unknown cost", () => {
    const io = record();
    const log = createStepLog(io, redact);
    const events: LoopEvent[] = [
      { type: "turn-start", turn: 1 },
      {
        type: "usage-updated",
        turn: 1,
        totalTokens: 120,
        promptTokens: 100,
        completionTokens: 20,
        costUsd: null,
      },
      { type: "turn-start", turn: 2 },
      { type: "tool-call-start", turn: 2, callId: "a", name: "read_file", arguments: '{"path":"a.txt"}' },
      { type: "tool-call-start", turn: 2, callId: "b", name: "shell", arguments: '{"command":"rm -rf /"}' },
      {
        type: "tool-call-end",
        turn: 2,
        callId: "a",
        name: "read_file",
        result: okResult("a", { summary: "read a.txt" }),
        durationMs: 1,
      },
      {
        type: "tool-call-refused",
        turn: 2,
        callId: "b",
        name: "shell",
        reason: "Refused by the approval policy: no",
      },
      {
        type: "tool-call-end",
        turn: 2,
        callId: "b",
        name: "shell",
        result: errorResult("COMMAND_BLOCKED", {
          status: "refused",
          message: "Refused by the approval policy: no",
          recovery_hint: "ask",
          next_actions: ["answer"],
        }),
        durationMs: 1,
      },
      { type: "run-finished", turn: 2, exitReason: "final_answer", finalAnswer: "done" },
    ];
    for (const event of events) log.onEvent(event);
    log.flush();
    expect(io.lines).toEqual([
      "turn 1",
      "turn 2 · 120 tokens · cost unknown",
      '  → read_file {"path":"a.txt"}',
      '  → shell {"command":"rm -rf /"}',
      "    read_file ok: read a.txt",
      "    shell refused COMMAND_BLOCKED: Refused by the approval policy: no",
      "finished: final_answer · 1 refused · 120 tokens · cost unknown",
    ]);
  });
});
