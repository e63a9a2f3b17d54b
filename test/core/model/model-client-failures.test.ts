import { describe, expect, it } from "@jest/globals";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { createOpenAIModelClient } from "../../../src/core/model/create-openai-model-client.js";
import { ModelError } from "../../../src/core/model/model-error.js";
import type { MockModelServer } from "../../../src/mock-model/start-mock-model-server.js";
import { useMockServers, userAsks } from "./mock-server-fixture.js";

async function failureOf(promise: Promise<unknown>): Promise<ModelError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof ModelError)) throw new Error(`expected a ModelError, got ${String(error)}`);
  return error;
}

/** Aborts once the server holds the request, so the abort lands in flight, not before sending. */
function abortOnceReceived(server: MockModelServer, controller: AbortController): void {
  const poll = setInterval(() => {
    if (server.requests.length === 0) return;
    clearInterval(poll);
    setTimeout(() => controller.abort(), 20);
  }, 5);
}

describe("model client retries", () => {
  const servers = useMockServers();

  it("retries a 500 and honours Retry-After in seconds", async () => {
    const server = await servers.start({
      steps: [
        { type: "error", status: 500, retry_after: "1" },
        { type: "text", text: "recovered" },
      ],
    });
    const { client, sleeps } = servers.client(server, {});
    const retries: unknown[] = [];
    const response = await client.complete(userAsks("go"), { onRetry: (info) => retries.push(info) });
    expect(response.message.content).toBe("recovered");
    expect(response.attempts).toBe(2);
    expect(server.requests).toHaveLength(2);
    expect(sleeps).toEqual([1000]);
    expect(retries).toEqual([expect.objectContaining({ model: "gpt-4.1-mini", attempt: 2, delayMs: 1000 })]);
  });

  it("retries a 429 after retry-after-ms and caps a huge Retry-After", async () => {
    const server = await servers.start({
      steps: [
        { type: "error", status: 429, retry_after_ms: 250 },
        { type: "error", status: 429, retry_after: "3600" },
        { type: "text", text: "ok" },
      ],
    });
    const { client, sleeps } = servers.client(server, { retry: { maxDelayMs: 5_000 } });
    await client.complete(userAsks("go"));
    expect(sleeps).toEqual([250, 5_000]);
  });

  it("backs off exponentially with full jitter when the server gives no Retry-After", async () => {
    const server = await servers.start({
      steps: [
        { type: "error", status: 502 },
        { type: "error", status: 529 },
        { type: "error", status: 503 },
        { type: "text", text: "ok" },
      ],
    });
    const { client, sleeps } = servers.client(server, {
      random: () => 0.5,
      retry: { baseDelayMs: 100, maxDelayMs: 10_000, maxAttempts: 4 },
      circuitBreaker: { failureThreshold: 10 },
    });
    const response = await client.complete(userAsks("go"));
    expect(response.attempts).toBe(4);
    expect(sleeps).toEqual([50, 100, 200]);
  });

  it("fails on 401 at once with MODEL_AUTH_FAILED naming the variable, without fallback", async () => {
    const server = await servers.start({
      steps: [{ type: "error", status: 401, times: "forever" }],
    });
    const { client, sleeps } = servers.client(server, { fallbackModels: ["gpt-4o"] });
    const fallbacks: unknown[] = [];
    const error = await failureOf(
      client.complete(userAsks("go"), { onFallback: (info) => fallbacks.push(info) }),
    );
    expect(error.code).toBe("MODEL_AUTH_FAILED");
    expect(error.status).toBe(401);
    expect(error.retryable).toBe(false);
    expect(error.message).toContain("OPENAI_API_KEY");
    expect(server.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
    expect(fallbacks).toEqual([]);
  });

  it.each([400, 422])("does not retry HTTP %i", async (status) => {
    const server = await servers.start({ steps: [{ type: "error", status, times: "forever" }] });
    const { client } = servers.client(server, {});
    const error = await failureOf(client.complete(userAsks("go")));
    expect(error.code).toBe("MODEL_BAD_RESPONSE");
    expect(error.status).toBe(status);
    expect(server.requests).toHaveLength(1);
  });

  it("says which variable to fix when the model does not exist", async () => {
    const server = await servers.start({ steps: [{ type: "error", status: 404 }] });
    const { client } = servers.client(server, {});
    const error = await failureOf(client.complete(userAsks("go")));
    expect(error.code).toBe("MODEL_UNAVAILABLE");
    expect(error.message).toContain("AGENTFORGE_MODEL");
    expect(server.requests).toHaveLength(1);
  });

  it("retries when the endpoint refuses connections, then reports it unavailable", async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const sleeps: number[] = [];
    const client = createOpenAIModelClient({
      model: "gpt-4o",
      apiKey: "k",
      baseURL: `http://127.0.0.1:${port}/v1`,
      retry: { maxAttempts: 2, baseDelayMs: 1 },
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    });
    const error = await failureOf(client.complete(userAsks("go")));
    expect(error.code).toBe("MODEL_UNAVAILABLE");
    expect(error.retryable).toBe(true);
    expect(error.message).toContain("OPENAI_BASE_URL");
    expect(sleeps).toHaveLength(1);
  });

  it("refuses to start without an API key for the default endpoint", () => {
    expect(() => createOpenAIModelClient({ model: "gpt-4o" })).toThrow(/OPENAI_API_KEY/);
  });
});

describe("model client timeouts and cancellation", () => {
  const servers = useMockServers();

  it("cancels a call in flight without retrying", async () => {
    const server = await servers.start({ steps: [{ type: "hang", times: "forever" }] });
    const { client, sleeps } = servers.client(server, {});
    const controller = new AbortController();
    abortOnceReceived(server, controller);
    const started = Date.now();
    const error = await failureOf(client.complete(userAsks("go"), { signal: controller.signal }));
    expect(error.code).toBe("MODEL_CANCELLED");
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(server.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it("cancels a streamed answer whose body is still arriving", async () => {
    const server = await servers.start({ steps: [{ type: "hang", after_headers: true }] });
    const { client } = servers.client(server, {});
    const controller = new AbortController();
    abortOnceReceived(server, controller);
    const error = await failureOf(
      client.complete({ ...userAsks("go"), stream: true }, { signal: controller.signal }),
    );
    expect(error.code).toBe("MODEL_CANCELLED");
    expect(server.requests).toHaveLength(1);
  });

  it("cancels during a backoff wait", async () => {
    const server = await servers.start({ steps: [{ type: "error", status: 503, retry_after: "10" }] });
    const controller = new AbortController();
    const client = createOpenAIModelClient({
      model: "gpt-4o",
      apiKey: "k",
      baseURL: server.url,
      retry: { maxDelayMs: 60_000 },
    });
    const started = Date.now();
    const pending = failureOf(
      client.complete(userAsks("go"), { signal: controller.signal, onRetry: () => controller.abort() }),
    );
    const error = await pending;
    expect(error.code).toBe("MODEL_CANCELLED");
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("turns a hang past the HTTP timeout into MODEL_TIMEOUT and retries it", async () => {
    const server = await servers.start({ steps: [{ type: "hang", times: 2 }] });
    const { client } = servers.client(server, {
      timeouts: { httpMs: 150, inferenceMs: 10_000 },
      retry: { maxAttempts: 2, baseDelayMs: 1 },
    });
    const error = await failureOf(client.complete(userAsks("go")));
    expect(error.code).toBe("MODEL_TIMEOUT");
    expect(error.message).toContain("HTTP timeout of 150 ms");
    expect(error.message).not.toContain("..");
    expect(server.requests).toHaveLength(2);
  });

  it("enforces the inference timeout on a streamed body the HTTP timeout no longer watches", async () => {
    const server = await servers.start({
      steps: [
        { type: "hang", after_headers: true },
        { type: "text", text: "second try" },
      ],
    });
    const { client } = servers.client(server, { timeouts: { httpMs: 500, inferenceMs: 1_000 } });
    const retries: string[] = [];
    const response = await client.complete(
      { ...userAsks("go"), stream: true },
      {
        onRetry: (info) => retries.push(info.reason),
      },
    );
    expect(response.message.content).toBe("second try");
    expect(retries).toHaveLength(1);
    expect(retries[0]).toContain("inference timeout of 1000 ms");
  });
});
