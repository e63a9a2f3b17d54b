import { afterEach, describe, expect, it } from "@jest/globals";
import { createOpenAIModelClient } from "../../src/core/model/create-openai-model-client.js";
import type { ChatMessage } from "../../src/core/model/model-types.js";
import { mockScriptFromTrace } from "../../src/mock-model/mock-script-from-trace.js";
import type { MockModelServer } from "../../src/mock-model/start-mock-model-server.js";
import { startMockModelServer } from "../../src/mock-model/start-mock-model-server.js";

const header = {
  record: "header",
  schema: "agentforge-trace/1",
  run_id: "run-1",
  task: "fix",
  user_goal: "fix the test",
  start_time: "2026-01-01T00:00:00.000Z",
  model: "gpt-4o",
  config_digest: "abc",
};

function event(step: number, eventType: string, attributes: Record<string, unknown>) {
  return { record: "event", event_type: eventType, step, timestamp: "2026-01-01T00:00:01.000Z", attributes };
}

const recordedCalls = [
  { id: "call_read", name: "read_file", arguments: '{"path":"src/a.ts"}' },
  { id: "call_bad", name: "write_file", arguments: '{"path": "b.ts", "content": "oops' },
];

const traceLines = [
  header,
  event(1, "model-call-start", { "gen_ai.request.model": "gpt-4o" }),
  event(1, "model-call-end", {
    "model.text": "I will read the file.",
    "model.tool_calls": recordedCalls,
    "gen_ai.usage.input_tokens": 120,
    "gen_ai.usage.output_tokens": 30,
  }),
  event(1, "tool-call-end", { "tool_call.name": "read_file" }),
  event(2, "model-call-end", { "model.text": "Done: the test passes.", "model.tool_calls": [] }),
  { record: "footer", finish_time: "2026-01-01T00:00:09.000Z", exit_reason: "final_answer", turns: 2 },
].map((line) => JSON.stringify(line));

const servers: MockModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

describe("mockScriptFromTrace", () => {
  it("turns each model-call-end event into a step", () => {
    const result = mockScriptFromTrace(traceLines.join("\n") + "\n");
    expect(result).toEqual({
      success: true,
      value: {
        steps: [
          {
            type: "tool_calls",
            text: "I will read the file.",
            calls: recordedCalls,
            usage: { prompt_tokens: 120, completion_tokens: 30 },
          },
          { type: "text", text: "Done: the test passes." },
        ],
      },
    });
  });

  it("replays the model side of a run through the real client", async () => {
    const script = mockScriptFromTrace(traceLines);
    if (!script.success) throw new Error(script.error);
    const server = await startMockModelServer({ script: script.value });
    servers.push(server);
    const client = createOpenAIModelClient({ model: "gpt-4o", apiKey: "k", baseURL: server.url });
    const messages: ChatMessage[] = [{ role: "user", content: "fix the test" }];

    const first = await client.complete({ messages, tools: [], stream: true });
    expect(first.message.content).toBe("I will read the file.");
    expect(
      first.message.tool_calls?.map((call) => ({
        id: call.id,
        name: call.function.name,
        arguments: call.function.arguments,
      })),
    ).toEqual(recordedCalls);
    expect(first.usage.promptTokens).toBe(120);

    messages.push(first.message);
    for (const call of first.message.tool_calls ?? []) {
      messages.push({ role: "tool", tool_call_id: call.id, content: "result" });
    }
    const second = await client.complete({ messages, tools: [] });
    expect(second.message).toEqual({ role: "assistant", content: "Done: the test passes." });
    expect(server.requests.map((request) => request.stepIndex)).toEqual([0, 1]);
  });

  it.each([
    [[JSON.stringify({ ...header, schema: "other/2" })], /line 1 is not a trace header/],
    [[JSON.stringify(header), "{not json"], /line 2 is not JSON/],
    [
      [
        JSON.stringify(header),
        JSON.stringify(event(1, "model-call-end", { "model.tool_calls": [{ name: "x" }] })),
      ],
      /line 2: model-call-end attribute model\.tool_calls\.0\.id/,
    ],
  ])("rejects a broken trace with the line and field", (lines, message) => {
    const result = mockScriptFromTrace(lines);
    expect(result.success).toBe(false);
    if (!result.success) expect(result.error).toMatch(message);
  });
});
