import { afterEach, describe, expect, it } from "@jest/globals";
import { checkToolCallPairing } from "../../src/mock-model/chat-request-body.js";
import { parseMockScript, type MockScript } from "../../src/mock-model/mock-script.js";
import type { MockModelServer } from "../../src/mock-model/start-mock-model-server.js";
import { startMockModelServer } from "../../src/mock-model/start-mock-model-server.js";
import { waitUntil } from "../support/wait-until.js";

const servers: MockModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function start(script: MockScript): Promise<MockModelServer> {
  const server = await startMockModelServer({ script });
  servers.push(server);
  return server;
}

async function chat(server: MockModelServer, body: Record<string, unknown>): Promise<Response> {
  return fetch(`${server.url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ messages: [{ role: "user", content: "hi" }], ...body }),
  });
}

function sseData(text: string): unknown[] {
  return text
    .split("\n\n")
    .filter((event) => event.startsWith("data: "))
    .map((event) => event.slice("data: ".length))
    .map((data) => (data === "[DONE]" ? data : (JSON.parse(data) as unknown)));
}

describe("startMockModelServer", () => {
  it("listens on an ephemeral port of 127.0.0.1 and lists the scripted models", async () => {
    const server = await start({ steps: [{ type: "text", text: "a", model: "model-a" }] });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const models = (await (await fetch(`${server.url}/models`)).json()) as { data: { id: string }[] };
    expect(models.data.map((model) => model.id)).toEqual(["mock-model", "model-a"]);
  });

  it("streams SSE with tool-call arguments split across chunks, usage, then [DONE]", async () => {
    const server = await start({
      steps: [
        { type: "tool_calls", calls: [{ id: "c1", name: "read_file", arguments: { path: "src/index.ts" } }] },
      ],
    });
    const response = await chat(server, {
      model: "m",
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const events = sseData(await response.text()) as {
      choices?: {
        delta: { tool_calls?: { function?: { arguments?: string } }[] };
        finish_reason: string | null;
      }[];
      usage?: { total_tokens: number };
    }[];
    expect(events.at(-1)).toBe("[DONE]");
    const pieces = events.flatMap((event) =>
      (event.choices ?? [])
        .flatMap((choice) => choice.delta.tool_calls ?? [])
        .map((call) => call.function?.arguments ?? ""),
    );
    expect(pieces.filter((piece) => piece !== "").length).toBeGreaterThan(1);
    expect(pieces.join("")).toBe('{"path":"src/index.ts"}');
    expect(events.some((event) => event.choices?.[0]?.finish_reason === "tool_calls")).toBe(true);
    const usageEvent = events.at(-2) as { choices: unknown[]; usage: { total_tokens: number } };
    expect(usageEvent.choices).toEqual([]);
    expect(usageEvent.usage.total_tokens).toBeGreaterThan(0);
  });

  it("serves a model's own steps first, then shared ones, honouring times", async () => {
    const server = await start({
      steps: [
        { type: "text", text: "shared 1" },
        { type: "error", status: 503, model: "a", times: 2 },
        { type: "text", text: "shared 2" },
      ],
    });
    const statuses: number[] = [];
    for (const model of ["a", "b", "a", "a"]) statuses.push((await chat(server, { model })).status);
    expect(statuses).toEqual([503, 200, 503, 200]);
    expect(server.requests.map((request) => request.stepIndex)).toEqual([1, 0, 1, 2]);
  });

  it("sends the scripted error status, Retry-After and body", async () => {
    const server = await start({
      steps: [{ type: "error", status: 429, retry_after: "2", body: { error: { message: "slow down" } } }],
    });
    const response = await chat(server, { model: "m" });
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("2");
    expect(await response.json()).toEqual({ error: { message: "slow down" } });
  });

  it("waits delay_ms before answering", async () => {
    const server = await start({ steps: [{ type: "text", text: "late", delay_ms: 150 }] });
    const started = Date.now();
    await (await chat(server, { model: "m" })).json();
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  it("answers loudly with HTTP 400 once the script is exhausted", async () => {
    const server = await start({ steps: [{ type: "text", text: "only one" }] });
    await (await chat(server, { model: "m" })).json();
    const response = await chat(server, { model: "m" });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { message: string; type: string } };
    expect(body.error.type).toBe("mock_script_exhausted");
    expect(body.error.message).toContain("request #2");
    expect(server.requests[1]?.stepIndex).toBeUndefined();
  });

  it("rejects a request that is not a chat completion", async () => {
    const server = await start({ steps: [] });
    const response = await fetch(`${server.url}/chat/completions`, { method: "POST", body: "{oops" });
    expect(response.status).toBe(400);
    expect((await fetch(`${server.url}/embeddings`, { method: "POST", body: "{}" })).status).toBe(404);
  });

  it("closes promptly while a hanging request is still open", async () => {
    const server = await startMockModelServer({ script: { steps: [{ type: "hang" }] } });
    const pending = chat(server, { model: "m" }).then(
      () => "answered",
      () => "connection closed",
    );
    await waitUntil(() => server.requests.length > 0, "the hanging request to arrive");
    const started = Date.now();
    await server.close();
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(await pending).toBe("connection closed");
  });
});

describe("checkToolCallPairing", () => {
  it("finds calls without results and results without calls", () => {
    const call = (id: string) => ({ id, type: "function", function: { name: "f", arguments: "{}" } });
    expect(
      checkToolCallPairing([
        { role: "user", content: "go" },
        { role: "assistant", content: null, tool_calls: [call("a"), call("b")] },
        { role: "tool", tool_call_id: "a", content: "ok" },
        { role: "tool", tool_call_id: "z", content: "?" },
        { role: "assistant", content: null, tool_calls: [call("c")] },
        { role: "tool", tool_call_id: "c", content: "ok" },
        { role: "tool", tool_call_id: "c", content: "again" },
      ]),
    ).toEqual({ unanswered: ["b"], orphaned: ["z", "c"] });
  });
});

describe("startMockModelServer by turn", () => {
  it("answers each conversation by its own turn, after the configured latency", async () => {
    const script = parseMockScript({
      steps: [
        { type: "text", text: "first turn" },
        { type: "text", text: "second turn" },
      ],
    });
    if (!script.success) throw new Error(script.error);
    const server = await startMockModelServer({ script: script.value, steps: "turn", delayMs: 5 });
    const ask = async (messages: { role: string; content: string }[]): Promise<string> => {
      const response = await fetch(`${server.url}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "mock-model", messages }),
      });
      const body = (await response.json()) as { choices: { message: { content: string } }[] };
      return body.choices[0]?.message.content ?? "";
    };
    try {
      const user = { role: "user", content: "hi" };
      // Three conversations at once: none takes another's step.
      const firsts = await Promise.all([ask([user]), ask([user]), ask([user])]);
      expect(firsts).toEqual(["first turn", "first turn", "first turn"]);
      expect(await ask([user, { role: "assistant", content: "first turn" }, user])).toBe("second turn");
    } finally {
      await server.close();
    }
  });
});
