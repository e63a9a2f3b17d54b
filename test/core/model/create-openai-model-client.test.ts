import { describe, expect, it } from "@jest/globals";
import { computeCost, DEFAULT_PRICE_TABLE } from "../../../src/core/model/price-table.js";
import { checkToolCallPairing } from "../../../src/mock-model/chat-request-body.js";
import { useMockServers, userAsks } from "./mock-server-fixture.js";

describe("createOpenAIModelClient answering", () => {
  const servers = useMockServers();

  it("returns a text answer with usage and cost from the price table", async () => {
    const server = await servers.start({
      steps: [
        { type: "text", text: "All tests pass.", usage: { prompt_tokens: 1000, completion_tokens: 200 } },
      ],
    });
    const { client } = servers.client(server, { model: "gpt-4o" });
    const response = await client.complete(userAsks("run the tests"));
    expect(response.message).toEqual({ role: "assistant", content: "All tests pass." });
    expect(response.finishReason).toBe("stop");
    expect(response.usage).toEqual({ promptTokens: 1000, completionTokens: 200, totalTokens: 1200 });
    // gpt-4o: $2.50 in, $10 out per million tokens.
    expect(response.costUsd).toBeCloseTo(0.0025 + 0.002, 10);
    expect(response.costKnown).toBe(true);
    expect(response.model).toBe("gpt-4o");
    expect(response.attempts).toBe(1);
    const body = server.requests[0]?.body;
    expect(body?.model).toBe("gpt-4o");
    expect(body?.messages).toEqual([{ role: "user", content: "run the tests" }]);
    expect(body?.tool_choice).toBe("auto");
    expect(body?.tools).toHaveLength(1);
  });

  it("bills cached prompt tokens at the cached price", () => {
    const cost = computeCost(DEFAULT_PRICE_TABLE, "gpt-4.1-2025-04-14", {
      promptTokens: 1_000_000,
      completionTokens: 0,
      totalTokens: 1_000_000,
      cachedPromptTokens: 500_000,
    });
    expect(cost).toEqual({ costUsd: 0.5 * 2 + 0.5 * 0.5, isKnown: true });
  });

  it("reports an unknown model's cost as 0 and unknown", async () => {
    const server = await servers.start({ steps: [{ type: "text", text: "hi" }] });
    const { client } = servers.client(server, { model: "local-llama" });
    const response = await client.complete(userAsks("hello"));
    expect(response.usage.totalTokens).toBeGreaterThan(0);
    expect(response.costUsd).toBe(0);
    expect(response.costKnown).toBe(false);
  });

  it("leaves usage at 0 and marks the cost unknown when the server reports none", async () => {
    const server = await servers.start({ steps: [{ type: "text", text: "hi", usage: null }] });
    const { client } = servers.client(server, { model: "gpt-4o" });
    const response = await client.complete({ ...userAsks("hello"), stream: true });
    expect(response.usage).toEqual({ promptTokens: 0, completionTokens: 0, totalTokens: 0 });
    expect(response.costKnown).toBe(false);
  });

  it("returns two parallel tool calls from one non-streamed answer", async () => {
    const server = await servers.start({
      steps: [
        {
          type: "tool_calls",
          calls: [
            { id: "call_a", name: "read_file", arguments: { path: "src/a.ts" } },
            { id: "call_b", name: "read_file", arguments: { path: "src/b.ts" } },
          ],
        },
      ],
    });
    const { client } = servers.client(server, {});
    const response = await client.complete(userAsks("read both"));
    expect(response.finishReason).toBe("tool_calls");
    expect(response.message.tool_calls).toEqual([
      { id: "call_a", type: "function", function: { name: "read_file", arguments: '{"path":"src/a.ts"}' } },
      { id: "call_b", type: "function", function: { name: "read_file", arguments: '{"path":"src/b.ts"}' } },
    ]);
  });

  it("reassembles streamed text and tool-call arguments split across chunks", async () => {
    const longArguments = { path: "src/deeply/nested/directory/file-with-a-long-name.ts", offset: 120 };
    const server = await servers.start({
      steps: [
        {
          type: "tool_calls",
          text: "Let me look at both files first.",
          calls: [
            { id: "call_1", name: "read_file", arguments: longArguments },
            { id: "call_2", name: "list_directory", arguments: { path: "src" } },
          ],
          usage: { prompt_tokens: 50, completion_tokens: 30, cached_tokens: 20 },
        },
      ],
    });
    const { client } = servers.client(server, { model: "gpt-4.1-mini" });
    const deltas: string[] = [];
    const response = await client.complete(userAsks("look"), {
      onTextDelta: (text) => deltas.push(text),
    });
    expect(server.requests[0]?.body?.stream).toBe(true);
    expect(server.requests[0]?.body?.stream_options).toEqual({ include_usage: true });
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe("Let me look at both files first.");
    expect(response.message.content).toBe("Let me look at both files first.");
    expect(response.message.tool_calls?.map((call) => call.id)).toEqual(["call_1", "call_2"]);
    expect(JSON.parse(response.message.tool_calls?.[0]?.function.arguments ?? "")).toEqual(longArguments);
    expect(response.message.tool_calls?.[1]?.function.name).toBe("list_directory");
    expect(response.usage).toEqual({
      promptTokens: 50,
      completionTokens: 30,
      totalTokens: 80,
      cachedPromptTokens: 20,
    });
    expect(response.costUsd).toBeCloseTo((30 * 0.4 + 20 * 0.1 + 30 * 1.6) / 1_000_000, 12);
  });

  it.each([false, true])("passes malformed tool-call JSON through raw (stream: %s)", async (stream) => {
    const raw = '{"path": "src/a.ts", "content": "unterminated';
    const server = await servers.start({
      steps: [{ type: "tool_calls", calls: [{ id: "call_bad", name: "write_file", arguments: raw }] }],
    });
    const { client } = servers.client(server, {});
    const response = await client.complete({ ...userAsks("write"), stream });
    expect(response.message.tool_calls?.[0]?.function.arguments).toBe(raw);
  });

  it("gives tool calls without ids a stable generated id", async () => {
    const script = {
      steps: [{ type: "tool_calls" as const, calls: [{ name: "read_file", arguments: { path: "a" } }] }],
    };
    // The mock always sends ids, so strip them on the way with a fetch wrapper.
    const stripIds: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      const json = (await response.json()) as { choices: { message: { tool_calls?: { id?: string }[] } }[] };
      for (const call of json.choices[0]?.message.tool_calls ?? []) delete call.id;
      return new Response(JSON.stringify(json), { status: response.status, headers: response.headers });
    };
    const ids: string[] = [];
    for (let run = 0; run < 2; run += 1) {
      const server = await servers.start(script);
      const { client } = servers.client(server, { fetch: stripIds });
      const response = await client.complete(userAsks("read"));
      ids.push(response.message.tool_calls?.[0]?.id ?? "");
    }
    expect(ids[0]).toMatch(/^call_[0-9a-f]{24}$/);
    expect(ids[1]).toBe(ids[0]);
  });

  it("sends the transcript back so every tool result answers its call", async () => {
    const server = await servers.start({
      steps: [
        { type: "tool_calls", calls: [{ id: "call_x", name: "read_file", arguments: { path: "a" } }] },
        { type: "text", text: "done" },
      ],
    });
    const { client } = servers.client(server, {});
    const first = await client.complete(userAsks("read a"));
    const second = await client.complete({
      ...userAsks("read a"),
      messages: [
        ...userAsks("read a").messages,
        first.message,
        { role: "tool", tool_call_id: "call_x", content: "contents of a" },
      ],
      toolChoice: "none",
    });
    expect(second.message.content).toBe("done");
    const messages = server.requests[1]?.body?.messages ?? [];
    expect(messages[1]?.tool_calls?.[0]?.id).toBe("call_x");
    expect(server.requests[1]?.body?.tool_choice).toBe("none");
    expect(checkToolCallPairing(messages)).toEqual({ unanswered: [], orphaned: [] });
  });

  it("omits tools and tool_choice when no tools are offered", async () => {
    const server = await servers.start({ steps: [{ type: "text", text: "ok" }] });
    const { client } = servers.client(server, {});
    await client.complete({ messages: [{ role: "system", content: "be brief" }], tools: [] });
    expect(server.requests[0]?.body).not.toHaveProperty("tools");
    expect(server.requests[0]?.body).not.toHaveProperty("tool_choice");
  });
});
