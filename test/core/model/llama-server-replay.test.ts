import { afterEach, describe, expect, it } from "@jest/globals";
import { join } from "node:path";
import { createOpenAIModelClient } from "../../../src/core/model/create-openai-model-client.js";
import { ModelError } from "../../../src/core/model/model-error.js";
import type { ModelRequest } from "../../../src/core/model/model-types.js";
import {
  readRecordedResponse,
  startReplayServer,
  type ReplayServer,
} from "../../support/replay-recorded-responses.js";

const FIXTURES = join(import.meta.dirname, "../../fixtures/real-model");
const fixture = (name: string) => readRecordedResponse(join(FIXTURES, `${name}.res.txt`));

const REQUEST: ModelRequest = {
  messages: [
    { role: "system", content: "You are a coding agent." },
    { role: "user", content: "Read src/index.ts." },
  ],
  tools: [
    {
      type: "function",
      function: {
        name: "read_file",
        description: "Reads a file.",
        parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
      },
    },
  ],
  stream: true,
};

/**
 * What llama.cpp's server sends (test/fixtures/real-model), byte for byte through the real openai
 * SDK and the harness's model client: the parsing of streams, tool-call deltas, usage,
 * finish_reason and errors as that server shapes them.
 */
describe("the model client on llama-server's responses", () => {
  let server: ReplayServer | undefined;
  afterEach(async () => server?.close());

  async function clientFor(...names: string[]) {
    server = await startReplayServer(names.map(fixture));
    const client = createOpenAIModelClient({
      model: "models/tools.gguf",
      baseURL: server.url,
      apiKey: "sk-local",
      retry: { maxAttempts: 2, baseDelayMs: 1 },
      sleep: async () => undefined,
    });
    return { client, requests: server.requests };
  }

  it("reads a streamed answer: role chunk with null content, text pieces, then usage on a chunk without choices", async () => {
    const { client, requests } = await clientFor("stream-text");
    const deltas: string[] = [];
    const response = await client.complete(REQUEST, { onTextDelta: (text) => deltas.push(text) });
    expect(response.message).toEqual({ role: "assistant", content: "çı ambos Okayерен sal" });
    expect(deltas.join("")).toBe("çı ambos Okayерен sal");
    expect(response.finishReason).toBe("stop");
    expect(response.usage).toMatchObject({ promptTokens: 3512, completionTokens: 6, totalTokens: 3518 });
    expect(response.usage.cachedPromptTokens).toBe(3498);
    // llama.cpp sends usage only when asked: the request must ask.
    expect(requests[0]).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it("assembles a tool call whose id and name come before its argument pieces", async () => {
    const { client } = await clientFor("stream-tool-call");
    const response = await client.complete(REQUEST);
    expect(response.finishReason).toBe("tool_calls");
    expect(response.message.tool_calls).toEqual([
      {
        id: "MqlKYJ0mWhXa1VbvLc3Rn5nKtY8dQs2F",
        type: "function",
        function: { name: "read_file", arguments: '{"path":"src/index.ts"}' },
      },
    ]);
    expect(response.usage).toMatchObject({ promptTokens: 3530, completionTokens: 21 });
  });

  it("reports an answer cut by the output cap as finish_reason length", async () => {
    const { client } = await clientFor("stream-length");
    const response = await client.complete(REQUEST);
    expect(response.finishReason).toBe("length");
    expect(response.message.content).toBe(" the the ground ground");
    expect(response.usage.completionTokens).toBe(40);
  });

  it("does not resend a prompt the server says exceeds its context, and passes on the server's words", async () => {
    const { client, requests } = await clientFor("exceed-context", "stream-text");
    const failure = await client.complete(REQUEST).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ModelError);
    expect(failure).toMatchObject({ status: 400, retryable: false });
    expect((failure as ModelError).message).toContain("exceeds the available context size (4096 tokens)");
    expect(requests).toHaveLength(1);
  });

  it("fails with the server's reason when it cannot parse an echoed tool call's arguments", async () => {
    const { client } = await clientFor("unparsable-arguments", "unparsable-arguments");
    const failure = await client.complete(REQUEST).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ModelError);
    expect(failure).toMatchObject({ status: 500 });
    expect((failure as ModelError).message).toContain("Failed to parse tool call arguments as JSON");
  });

  it("retries after an error event inside a stream, and the retry's answer is the whole answer", async () => {
    const { client } = await clientFor("stream-error-event", "stream-text");
    const reasons: string[] = [];
    const deltas: string[] = [];
    const response = await client.complete(REQUEST, {
      onRetry: (info) => reasons.push(info.reason),
      onTextDelta: (text) => deltas.push(text),
    });
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toContain("Failed to decode the batch");
    expect(response.message.content).toBe("çı ambos Okayерен sal");
    // The piece streamed before the error was shown and then discarded by the caller's renderer.
    expect(deltas.join("")).toBe(" groundçı ambos Okayерен sal");
  });
});
