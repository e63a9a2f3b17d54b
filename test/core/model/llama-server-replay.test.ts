import { afterEach, describe, expect, it } from "@jest/globals";
import { join } from "node:path";
import { createOpenAIModelClient } from "../../../src/core/model/create-openai-model-client.js";
import { ModelError } from "../../../src/core/model/model-error.js";
import type { ModelRequest } from "../../../src/core/model/model-types.js";
import { probeModelServer } from "../../../src/core/model/probe-model-server.js";
import {
  readRecordedResponse,
  startReplayServer,
  type ReplayServer,
} from "../../support/replay-recorded-responses.js";

const FIXTURES = join(import.meta.dirname, "../../fixtures/llama-server");
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
 * What llama.cpp's server sent, recorded through ../shared/real-model/record-proxy.mjs
 * (test/fixtures/llama-server/README.md: server build and how), replayed byte for byte through the
 * real openai SDK and the harness's model client. Every case replays a recording; none is
 * hand-written.
 */
describe("the model client on llama-server's recorded responses", () => {
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

  it("reads a streamed answer: role chunk with null content, text, then usage and timings on a chunk without choices", async () => {
    const { client, requests } = await clientFor("stream-text");
    const deltas: string[] = [];
    const response = await client.complete(REQUEST, { onTextDelta: (text) => deltas.push(text) });
    expect(response.message).toEqual({ role: "assistant", content: "-defined" });
    expect(deltas.join("")).toBe("-defined");
    expect(response.finishReason).toBe("stop");
    expect(response.usage).toMatchObject({ promptTokens: 175, completionTokens: 2, totalTokens: 177 });
    expect(response.usage.cachedPromptTokens).toBe(174);
    // llama.cpp sends usage only when asked: the request must ask.
    expect(requests[0]).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it("assembles two parallel tool calls whose id and name come with the first argument piece", async () => {
    const { client } = await clientFor("stream-tool-call");
    const response = await client.complete(REQUEST);
    expect(response.finishReason).toBe("tool_calls");
    const calls = response.message.tool_calls ?? [];
    expect(calls.map((call) => [call.id, call.function.name])).toEqual([
      ["KnT7uEkIoket4FBrPYQJLoiJ0BPa36Bz", "read_file"],
      ["A3Uue6N0XTqrJuU0QOETcn7RxVmhpukK", "read_file"],
    ]);
    // The server's grammar forced schema-valid arguments; the synthetic model chose nonsense values.
    const paths = calls.map((call) => (JSON.parse(call.function.arguments) as { path: string }).path);
    expect(paths[0]).toMatch(/^nameeteor.*centres$/s);
    expect(paths[1]).toMatch(/^- setTimeout.*\(rows:d$/s);
    expect(response.usage).toMatchObject({ promptTokens: 165, completionTokens: 209 });
  });

  it("reports an answer cut by the output cap (-n 40) as finish_reason length", async () => {
    const { client } = await clientFor("stream-length");
    const response = await client.complete(REQUEST);
    expect(response.finishReason).toBe("length");
    expect(response.message.content).toMatch(/^ gastrointestinal/);
    expect(response.usage.completionTokens).toBe(40);
  });

  it("reports a tool call cut by the output cap as finish_reason length, which the loop never runs", async () => {
    const { client } = await clientFor("stream-tool-call-length");
    const response = await client.complete(REQUEST);
    expect(response.finishReason).toBe("length");
    expect(response.message.tool_calls?.[0]?.id).toBe("dLB1FcwIzWdwGI0am1z940eLyXtBzZ8g");
    expect(response.usage.completionTokens).toBe(40);
  });

  it("does not resend a prompt the server says exceeds its context, and passes on the server's words", async () => {
    const { client, requests } = await clientFor("exceed-context", "stream-text");
    const failure = await client.complete(REQUEST).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ModelError);
    expect(failure).toMatchObject({ status: 400, retryable: false });
    expect((failure as ModelError).message).toContain(
      "request (6030 tokens) exceeds the available context size (4096 tokens)",
    );
    expect(requests).toHaveLength(1);
  });

  it("fails with the server's reason when it cannot parse an echoed tool call's arguments", async () => {
    const { client } = await clientFor("unparsable-arguments", "unparsable-arguments");
    const failure = await client.complete(REQUEST).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ModelError);
    expect(failure).toMatchObject({ status: 500 });
    expect((failure as ModelError).message).toContain("Failed to parse tool call arguments as JSON");
  });

  it("retries after an error event inside a 200 stream, and the retry's answer is the whole answer", async () => {
    const { client } = await clientFor("stream-error-event", "stream-text");
    const reasons: string[] = [];
    const response = await client.complete(REQUEST, { onRetry: (info) => reasons.push(info.reason) });
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toContain("does not match the expected peg-native format");
    expect(response.message.content).toBe("-defined");
  });
});

describe("the run's probe on llama-server's recorded /v1/models and /props", () => {
  let server: ReplayServer | undefined;
  afterEach(async () => server?.close());

  it("reads the context size from /props and tool support from the tool template's caps", async () => {
    server = await startReplayServer([fixture("models"), fixture("props")]);
    const probed = await probeModelServer({ baseURL: server.url });
    expect(probed).toEqual({
      success: true,
      value: {
        servedModels: ["models/tools.gguf"],
        contextWindow: 4096,
        contextWindowSource: "props",
        supportsTools: true,
      },
    });
  });

  it("reads supports_tools false from the chatml template's /props", async () => {
    server = await startReplayServer([fixture("models"), fixture("chatml-props")]);
    const probed = await probeModelServer({ baseURL: server.url });
    expect(probed.success && probed.value.supportsTools).toBe(false);
  });
});
