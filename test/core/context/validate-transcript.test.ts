import { describe, it, expect } from "@jest/globals";
import fc from "fast-check";
import { validateTranscript } from "../../../src/core/context/validate-transcript.js";
import type { ChatMessage } from "../../../src/core/model/model-types.js";

const call = (id: string, name = "read_file") => ({
  id,
  type: "function" as const,
  function: { name, arguments: '{"path":"a.ts"}' },
});

function expectInvalid(messages: ChatMessage[], fragment: string): void {
  const result = validateTranscript(messages);
  expect(result.success).toBe(false);
  if (!result.success) expect(result.error).toContain(fragment);
}

describe("validateTranscript", () => {
  it("accepts a system prompt, a user message and answered parallel tool calls", () => {
    const messages: ChatMessage[] = [
      { role: "system", content: "rules" },
      { role: "user", content: "goal" },
      { role: "assistant", content: null, tool_calls: [call("a"), call("b")] },
      { role: "tool", tool_call_id: "b", content: "B" },
      { role: "tool", tool_call_id: "a", content: "A" },
      { role: "user", content: "more" },
      { role: "user", content: "even more" },
      { role: "assistant", content: "done" },
    ];
    expect(validateTranscript(messages)).toEqual({ success: true, value: true });
  });

  it("rejects an unanswered call, at the end or before the next message", () => {
    expectInvalid(
      [
        { role: "user", content: "g" },
        { role: "assistant", content: null, tool_calls: [call("a"), call("b")] },
        { role: "tool", tool_call_id: "a", content: "" },
      ],
      "never answered",
    );
    expectInvalid(
      [
        { role: "user", content: "g" },
        { role: "assistant", content: null, tool_calls: [call("a")] },
        { role: "user", content: "interrupt" },
        { role: "tool", tool_call_id: "a", content: "" },
      ],
      "before the tool call(s) a",
    );
  });

  it("rejects tool messages without a matching preceding call, or answered twice", () => {
    expectInvalid(
      [
        { role: "user", content: "g" },
        { role: "tool", tool_call_id: "x", content: "" },
      ],
      "no preceding assistant",
    );
    expectInvalid(
      [
        { role: "user", content: "g" },
        { role: "assistant", content: null, tool_calls: [call("a")] },
        { role: "tool", tool_call_id: "a", content: "" },
        { role: "tool", tool_call_id: "a", content: "" },
      ],
      "answered twice",
    );
  });

  it("rejects a history that starts with a tool or assistant message", () => {
    expectInvalid(
      [
        { role: "system", content: "s" },
        { role: "tool", tool_call_id: "a", content: "" },
      ],
      "first message",
    );
    expectInvalid([{ role: "assistant", content: "hi" }], "first message");
    expectInvalid([{ role: "system", content: "s" }], "no user message");
    expectInvalid([], "no user message");
  });

  it("rejects system messages after the first and duplicate call ids", () => {
    expectInvalid(
      [
        { role: "user", content: "g" },
        { role: "system", content: "late" },
      ],
      "system message",
    );
    expectInvalid(
      [
        { role: "user", content: "g" },
        { role: "assistant", content: null, tool_calls: [call("a")] },
        { role: "tool", tool_call_id: "a", content: "" },
        { role: "assistant", content: null, tool_calls: [call("a")] },
        { role: "tool", tool_call_id: "a", content: "" },
      ],
      "used twice",
    );
  });

  it("rejects empty assistant messages and empty tool_calls arrays", () => {
    expectInvalid(
      [
        { role: "user", content: "g" },
        { role: "assistant", content: null },
      ],
      "neither content nor tool calls",
    );
    expectInvalid(
      [
        { role: "user", content: "g" },
        { role: "assistant", content: "x", tool_calls: [] },
      ],
      "empty",
    );
    expectInvalid(
      [
        { role: "user", content: "g" },
        { role: "assistant", content: null, tool_calls: [call("")] },
      ],
      "empty id",
    );
  });
});

describe("validateTranscript on generated transcripts", () => {
  const turn = fc.oneof(
    fc.integer({ min: 1, max: 3 }).map((calls) => ({ kind: "calls" as const, calls })),
    fc.constant({ kind: "text" as const }),
    fc.constant({ kind: "user" as const }),
  );

  function build(turns: readonly { kind: "calls" | "text" | "user"; calls?: number }[]): ChatMessage[] {
    const messages: ChatMessage[] = [
      { role: "system", content: "s" },
      { role: "user", content: "goal" },
    ];
    let next = 0;
    for (const item of turns) {
      if (item.kind === "user") messages.push({ role: "user", content: "more" });
      else if (item.kind === "text") messages.push({ role: "assistant", content: "thinking" });
      else {
        const ids = Array.from({ length: item.calls ?? 1 }, () => `id${next++}`);
        messages.push({ role: "assistant", content: null, tool_calls: ids.map((id) => call(id)) });
        for (const id of ids.reverse()) messages.push({ role: "tool", tool_call_id: id, content: "out" });
      }
    }
    return messages;
  }

  it("accepts every transcript built by the rules and rejects each kind of breakage", () => {
    fc.assert(
      fc.property(
        fc.array(turn, { minLength: 1, maxLength: 20 }),
        fc.nat(),
        fc.constantFrom("drop-result", "duplicate-result", "interrupt", "result-first"),
        (turns, pick, mutation) => {
          const messages = build(turns);
          expect(validateTranscript(messages).success).toBe(true);
          const toolIndices = messages.flatMap((message, index) => (message.role === "tool" ? [index] : []));
          if (toolIndices.length === 0) return;
          const at = toolIndices[pick % toolIndices.length] ?? 0;
          const target = messages[at] as ChatMessage;
          const broken = [...messages];
          let callAt = at;
          while (broken[callAt]?.role !== "assistant") callAt -= 1;
          switch (mutation) {
            case "drop-result":
              broken.splice(at, 1);
              break;
            case "duplicate-result":
              broken.splice(at, 0, target);
              break;
            case "interrupt":
              broken.splice(callAt + 1, 0, { role: "user", content: "interrupt" });
              break;
            case "result-first":
              broken.splice(at, 1);
              broken.splice(callAt, 0, target);
              break;
          }
          expect(validateTranscript(broken).success).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });
});
