import { describe, expect, it } from "@jest/globals";
import { ModelError } from "../../../src/core/model/model-error.js";
import { chatRequestsFor, useMockServers, userAsks } from "./mock-server-fixture.js";

async function failureOf(promise: Promise<unknown>): Promise<ModelError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof ModelError)) throw new Error(`expected a ModelError, got ${String(error)}`);
  return error;
}

describe("model client fallback and circuit breaker", () => {
  const servers = useMockServers();

  it("falls back when the primary keeps failing, then skips it while its circuit is open", async () => {
    const server = await servers.start({
      steps: [
        { type: "error", status: 503, model: "primary", times: "forever" },
        { type: "text", text: "answer one", model: "backup" },
        { type: "text", text: "answer two", model: "backup" },
      ],
    });
    const { client, sleeps } = servers.client(server, {
      model: "primary",
      fallbackModels: ["backup"],
      retry: { maxAttempts: 5, baseDelayMs: 1 },
    });
    const fallbacks: { from: string; to: string; reason: string }[] = [];
    const onFallback = (info: { from: string; to: string; reason: string }) => fallbacks.push(info);

    const first = await client.complete(userAsks("go"), { onFallback });
    expect(first.message.content).toBe("answer one");
    expect(first.model).toBe("backup");
    // The circuit opens after 3 failed attempts, before maxAttempts (5) is reached.
    expect(chatRequestsFor(server, "primary")).toHaveLength(3);
    expect(first.attempts).toBe(4);
    expect(sleeps).toHaveLength(2);
    expect(fallbacks).toEqual([
      { from: "primary", to: "backup", reason: expect.stringContaining("HTTP 503") },
    ]);

    const second = await client.complete(userAsks("again"), { onFallback });
    expect(second.message.content).toBe("answer two");
    expect(chatRequestsFor(server, "primary")).toHaveLength(3);
    expect(second.attempts).toBe(1);
    expect(fallbacks[1]).toEqual({ from: "primary", to: "backup", reason: "circuit open" });
  });

  it("lets one trial through after the cool-down: success closes the circuit", async () => {
    let clock = 1_000_000;
    const server = await servers.start({
      steps: [
        { type: "error", status: 500, model: "primary", times: 3 },
        { type: "text", text: "primary is back", model: "primary", times: "forever" },
        { type: "text", text: "from backup", model: "backup", times: "forever" },
      ],
    });
    const { client } = servers.client(server, {
      model: "primary",
      fallbackModels: ["backup"],
      now: () => clock,
      circuitBreaker: { failureThreshold: 3, coolDownMs: 60_000 },
    });
    expect((await client.complete(userAsks("1"))).model).toBe("backup");
    clock += 59_999;
    expect((await client.complete(userAsks("2"))).model).toBe("backup");
    expect(chatRequestsFor(server, "primary")).toHaveLength(3);
    clock += 1;
    const trial = await client.complete(userAsks("3"));
    expect(trial.model).toBe("primary");
    expect(trial.message.content).toBe("primary is back");
    expect(chatRequestsFor(server, "primary")).toHaveLength(4);
    expect((await client.complete(userAsks("4"))).model).toBe("primary");
  });

  it("re-opens the circuit when the half-open trial fails", async () => {
    let clock = 0;
    const server = await servers.start({
      steps: [
        { type: "error", status: 500, model: "primary", times: "forever" },
        { type: "text", text: "from backup", model: "backup", times: "forever" },
      ],
    });
    const { client } = servers.client(server, {
      model: "primary",
      fallbackModels: ["backup"],
      now: () => clock,
      circuitBreaker: { coolDownMs: 1_000 },
    });
    await client.complete(userAsks("1"));
    expect(chatRequestsFor(server, "primary")).toHaveLength(3);
    clock += 1_000;
    await client.complete(userAsks("2"));
    // One trial only, no retries of it.
    expect(chatRequestsFor(server, "primary")).toHaveLength(4);
    clock += 999;
    await client.complete(userAsks("3"));
    expect(chatRequestsFor(server, "primary")).toHaveLength(4);
  });

  it("lists every model's last error and what to fix when all fail", async () => {
    const server = await servers.start({
      steps: [
        { type: "error", status: 503, model: "primary", times: "forever" },
        { type: "error", status: 404, model: "backup", times: "forever" },
      ],
    });
    const { client } = servers.client(server, { model: "primary", fallbackModels: ["backup"] });
    const error = await failureOf(client.complete(userAsks("go")));
    expect(error.code).toBe("MODEL_UNAVAILABLE");
    expect(error.message).toMatch(/primary: .*HTTP 503/);
    expect(error.message).toMatch(/backup: .*HTTP 404/);
    expect(error.message).toContain("AGENTFORGE_FALLBACK_MODELS");
    expect(error.message).toContain("OPENAI_BASE_URL");
    expect(error.cause).toBeInstanceOf(AggregateError);
  });

  it("reports MODEL_CIRCUIT_OPEN without sending anything when every circuit is open", async () => {
    const server = await servers.start({
      steps: [{ type: "error", status: 500, times: "forever" }],
    });
    const { client } = servers.client(server, {
      model: "primary",
      fallbackModels: ["backup"],
      now: () => 0,
      circuitBreaker: { coolDownMs: 30_000 },
    });
    await failureOf(client.complete(userAsks("1")));
    const sent = server.requests.length;
    expect(sent).toBe(6);
    const error = await failureOf(client.complete(userAsks("2")));
    expect(error.code).toBe("MODEL_CIRCUIT_OPEN");
    expect(error.retryAfterMs).toBe(30_000);
    expect(server.requests).toHaveLength(sent);
  });
});
