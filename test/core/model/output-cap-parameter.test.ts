import { describe, expect, it } from "@jest/globals";
import { createOpenAIModelClient } from "../../../src/core/model/create-openai-model-client.js";

/** Answers every request with one completion and keeps what was sent, without a socket. */
function recordingFetch(bodies: Record<string, unknown>[]): typeof fetch {
  return async (_input, init) => {
    const sent = typeof init?.body === "string" ? init.body : "{}";
    bodies.push(JSON.parse(sent) as Record<string, unknown>);
    const completion = {
      id: "c",
      object: "chat.completion",
      created: 0,
      model: "m",
      choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    };
    return new Response(JSON.stringify(completion), { headers: { "content-type": "application/json" } });
  };
}

const ask = { messages: [{ role: "user" as const, content: "hi" }], tools: [] };

describe("the output cap's parameter name", () => {
  it("is max_completion_tokens on OpenAI's own API, which refuses max_tokens for its reasoning models", async () => {
    const bodies: Record<string, unknown>[] = [];
    const client = createOpenAIModelClient({
      model: "gpt-5-mini",
      apiKey: "k",
      fetch: recordingFetch(bodies),
    });
    await client.complete(ask);
    expect(bodies[0]).toMatchObject({ max_completion_tokens: 4096 });
    expect(bodies[0]).not.toHaveProperty("max_tokens");
  });

  it("is max_tokens everywhere else, and a request may lower it", async () => {
    const bodies: Record<string, unknown>[] = [];
    const client = createOpenAIModelClient({
      model: "local",
      baseURL: "http://127.0.0.1:9/v1",
      fetch: recordingFetch(bodies),
    });
    await client.complete({ ...ask, maxOutputTokens: 64 });
    expect(bodies[0]).toMatchObject({ max_tokens: 64 });
    expect(bodies[0]).not.toHaveProperty("max_completion_tokens");
  });
});
