import { afterEach, describe, expect, it } from "@jest/globals";
import { probeModelServer } from "../../../src/core/model/probe-model-server.js";
import type { MockModelServer } from "../../../src/mock-model/start-mock-model-server.js";
import { startMockModelServer } from "../../../src/mock-model/start-mock-model-server.js";
import type { MockServerProfile } from "../../../src/mock-model/mock-server-profile.js";

const servers: MockModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});
async function serve(profile?: MockServerProfile): Promise<MockModelServer> {
  const server = await startMockModelServer({ script: { steps: [] }, ...(profile ? { profile } : {}) });
  servers.push(server);
  return server;
}

/** A fetch that answers like a server of another family, without a socket. */
function answering(routes: Record<string, unknown>): typeof fetch {
  return async (input) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const path = new URL(url).pathname;
    const body = routes[path];
    return body === undefined
      ? new Response("not found", { status: 404 })
      : new Response(JSON.stringify(body), { headers: { "content-type": "application/json" } });
  };
}

describe("probeModelServer", () => {
  it("reads a llama.cpp server's served model, its slot context from /props and its template's tool support", async () => {
    const server = await serve({ contextWindow: 4096, supportsTools: false });
    const probed = await probeModelServer({ baseURL: server.url });
    expect(probed).toEqual({
      success: true,
      value: {
        servedModels: ["mock-model"],
        contextWindow: 4096,
        contextWindowSource: "props",
        supportsTools: false,
      },
    });
    expect(server.requests.map((request) => request.path)).toEqual(["/v1/models", "/props"]);
  });

  it("reports no context size and no tool support when the server says neither", async () => {
    const server = await serve();
    const probed = await probeModelServer({ baseURL: server.url });
    expect(probed).toEqual({ success: true, value: { servedModels: ["mock-model"] } });
  });

  it("reads vLLM's max_model_len from /v1/models", async () => {
    const probed = await probeModelServer({
      baseURL: "http://vllm.invalid/v1",
      fetch: answering({
        "/v1/models": { object: "list", data: [{ id: "Qwen/Qwen2.5-7B", max_model_len: 32768 }] },
      }),
    });
    expect(probed).toEqual({
      success: true,
      value: { servedModels: ["Qwen/Qwen2.5-7B"], contextWindow: 32768, contextWindowSource: "models" },
    });
  });

  it("falls back to an older llama.cpp's n_ctx_train, saying so", async () => {
    const probed = await probeModelServer({
      baseURL: "http://old-llama.invalid/v1",
      fetch: answering({ "/v1/models": { data: [{ id: "m.gguf", meta: { n_ctx_train: 32768 } }] } }),
    });
    expect(probed.success && probed.value).toMatchObject({
      contextWindow: 32768,
      contextWindowSource: "models-training",
    });
  });

  it("fails with the URL and the reason when /v1/models does not answer with a list", async () => {
    const probed = await probeModelServer({ baseURL: "http://nothing.invalid/v1", fetch: answering({}) });
    expect(probed).toEqual({
      success: false,
      error: "http://nothing.invalid/v1/models: HTTP 404",
      status: 404,
    });
  });
});
