import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import OpenAI from "openai";
import { startMockModelServer, type MockModelServer } from "../../src/mock-model/start-mock-model-server.js";

describe("a mock step cut after some chunks", () => {
  let server: MockModelServer;
  let client: OpenAI;
  beforeAll(async () => {
    server = await startMockModelServer({
      script: {
        steps: [
          { type: "text", text: "0123456789abcdefXYZ", cut_after_chunks: 3 },
          { type: "text", text: "whole", cut_after_chunks: 1 },
        ],
      },
    });
    client = new OpenAI({ baseURL: server.url, apiKey: "sk-test", maxRetries: 0 });
  });
  afterAll(async () => server.close());

  it("streams that many chunks and then drops the connection without [DONE]", async () => {
    const stream = await client.chat.completions.create({
      model: "mock-model",
      messages: [{ role: "user", content: "hi" }],
      stream: true,
    });
    let text = "";
    await expect(
      (async () => {
        for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
      })(),
    ).rejects.toThrow();
    expect(text).toBe("0123456789abcdef");
  });

  it("drops a request without streaming before any answer", async () => {
    await expect(
      client.chat.completions.create({ model: "mock-model", messages: [{ role: "user", content: "hi" }] }),
    ).rejects.toBeInstanceOf(OpenAI.APIConnectionError);
  });
});
