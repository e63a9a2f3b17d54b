import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TOOLS_UNSUPPORTED_FIX } from "../../../src/core/loop/check-model-answer.js";
import { checkModel } from "../../../src/core/runtime/check-model.js";
import { createRuntime } from "../../../src/core/runtime/create-runtime.js";
import { startMockModelServer } from "../../../src/mock-model/start-mock-model-server.js";
import { readRecordedResponse } from "../../support/replay-recorded-responses.js";

interface Route {
  readonly status: number;
  readonly body: unknown;
}

/** A real HTTP server answering each path with one fixed answer, recording what it was asked. */
interface EndpointStandIn {
  readonly url: string;
  readonly requests: { method: string; path: string; body: unknown }[];
  close(): Promise<void>;
}

async function startEndpoint(routes: Readonly<Record<string, Route>>): Promise<EndpointStandIn> {
  const requests: EndpointStandIn["requests"] = [];
  const server: Server = createServer((request: IncomingMessage, response) => {
    const parts: Buffer[] = [];
    request.on("data", (part: Buffer) => parts.push(part));
    request.on("end", () => {
      const text = Buffer.concat(parts).toString("utf8");
      requests.push({
        method: request.method ?? "",
        path: request.url ?? "",
        body: text === "" ? undefined : (JSON.parse(text) as unknown),
      });
      const route = routes[request.url ?? ""] ?? { status: 404, body: { error: "not found" } };
      response.writeHead(route.status, { "content-type": "application/json" });
      response.end(JSON.stringify(route.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

// Bodies llama-server sent (test/fixtures/llama-server): the tool template's and the chatml one's.
const recorded = (name: string): Route => {
  const response = readRecordedResponse(
    join(import.meta.dirname, `../../fixtures/llama-server/${name}.res.txt`),
  );
  return { status: response.status, body: JSON.parse(response.body.toString("utf8")) as unknown };
};
const oneToken = {
  id: "c",
  object: "chat.completion",
  choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "length" }],
};

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "agentforge-check-model-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function configFile(config: object): Promise<string> {
  const path = join(dir, `config-${Math.random().toString(36).slice(2)}.json`);
  await writeFile(path, JSON.stringify(config));
  return path;
}

const TABLE: readonly {
  readonly name: string;
  readonly routes: Readonly<Record<string, Route>>;
  readonly env?: NodeJS.ProcessEnv;
  readonly config?: object;
  readonly status: "ok" | "warning" | "problem";
  readonly detail: string;
  readonly fix?: string;
}[] = [
  {
    name: "an OpenAI-like endpoint (ids only) with the operator's price",
    routes: {
      "/v1/models": {
        status: 200,
        body: { object: "list", data: [{ id: "gpt-4.1-mini" }, { id: "gpt-4o" }] },
      },
    },
    env: { AGENTFORGE_MODEL: "gpt-4.1-mini" },
    config: { prices: { "gpt-4.1-mini": { input_per_million: 0.4, output_per_million: 1.6 } } },
    status: "ok",
    detail:
      "gpt-4.1-mini (AGENTFORGE_MODEL) at URL; GET /models answered 200: it serves gpt-4.1-mini, gpt-4o; context 128000 tokens (assumed: neither the operator config nor the server says); tools: not reported; price: $0.4 input, $1.6 output per million tokens (operator config prices)",
  },
  {
    name: "llama.cpp with /props and no model named",
    routes: {
      "/v1/models": recorded("models"),
      "/props": recorded("props"),
    },
    status: "ok",
    detail:
      "models/tools.gguf (none named: the first model the server serves) at URL; GET /models answered 200: it serves models/tools.gguf; context 4096 tokens (server /props); tools: supported (server /props chat_template_caps); price: unknown: costs are shown as unknown",
  },
  {
    name: "a server whose template takes no tools",
    routes: {
      "/v1/models": recorded("chatml-models"),
      "/props": recorded("chatml-props"),
    },
    status: "problem",
    detail:
      "models/chatml.gguf (none named: the first model the server serves) at URL; GET /models answered 200: it serves models/chatml.gguf; context 4096 tokens (server /props); tools: NOT supported (server /props chat_template_caps): a run stops at its first turn; price: unknown: costs are shown as unknown",
    fix: TOOLS_UNSUPPORTED_FIX,
  },
  {
    name: "an OpenAI model name on another endpoint: unknown price; the operator's context size wins",
    routes: { "/v1/models": { status: 200, body: { data: [{ id: "gpt-4.1-mini", max_model_len: 32768 }] } } },
    env: { AGENTFORGE_MODEL: "gpt-4.1-mini" },
    config: { context_window: 16000 },
    status: "ok",
    detail:
      "gpt-4.1-mini (AGENTFORGE_MODEL) at URL; GET /models answered 200: it serves gpt-4.1-mini; context 16000 tokens (context_window in the operator config); tools: not reported; price: unknown: costs are shown as unknown",
  },
  {
    name: "a context size only in /models (vLLM's max_model_len), a named model it does not list",
    routes: { "/v1/models": { status: 200, body: { data: [{ id: "qwen", max_model_len: 32768 }] } } },
    env: { AGENTFORGE_MODEL: "other" },
    status: "warning",
    detail:
      "other (AGENTFORGE_MODEL) at URL; GET /models answered 200: it serves qwen; context 32768 tokens (server /models); tools: not reported; price: unknown: costs are shown as unknown; not listed: other",
    fix: "Set AGENTFORGE_MODEL (and AGENTFORGE_FALLBACK_MODELS) to models the endpoint serves.",
  },
  {
    name: "/models 404, the one-token request answers",
    routes: { "/v1/chat/completions": { status: 200, body: oneToken } },
    status: "ok",
    detail:
      "gpt-4.1-mini (none named: the default) at URL; GET /models answered 404; a one-token chat request (max_tokens 1) answered 200; context 128000 tokens (assumed: neither the operator config nor the server says); tools: not reported; price: unknown: costs are shown as unknown",
  },
  {
    name: "/models 404, the one-token request 404 too",
    routes: {},
    status: "problem",
    detail: "GET URL/models answered 404; a one-token POST URL/chat/completions answered 404",
    fix: "Check that OPENAI_BASE_URL ends with the API's version path (for example /v1) and that AGENTFORGE_MODEL names a model it serves.",
  },
  {
    name: "a key the endpoint refuses",
    routes: { "/v1/models": { status: 401, body: { error: "bad key" } } },
    status: "problem",
    detail: "GET URL/models answered 401: the endpoint refused the key",
    fix: "Set OPENAI_API_KEY to a key this endpoint accepts.",
  },
];

describe("the doctor's model check asks the endpoint what a run will use", () => {
  it.each(TABLE)("$name", async (row) => {
    const endpoint = await startEndpoint(row.routes);
    try {
      const check = await checkModel({
        OPENAI_BASE_URL: endpoint.url,
        OPENAI_API_KEY: "sk-doctor-000",
        ...(row.config === undefined ? {} : { AGENTFORGE_CONFIG: await configFile(row.config) }),
        ...row.env,
      });
      expect(check.status).toBe(row.status);
      expect(check.detail).toBe(row.detail.replaceAll("URL", endpoint.url));
      expect(check.fix).toBe(row.fix);
    } finally {
      await endpoint.close();
    }
  });

  it("sends the one-token request only when /models has no list, with max_tokens 1", async () => {
    const endpoint = await startEndpoint({ "/v1/chat/completions": { status: 200, body: oneToken } });
    try {
      const check = await checkModel({ OPENAI_BASE_URL: endpoint.url, AGENTFORGE_MODEL: "m" });
      expect(endpoint.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
        "GET /v1/models",
        "POST /v1/chat/completions",
      ]);
      expect(endpoint.requests[1]?.body).toMatchObject({ model: "m", max_tokens: 1 });
      expect(check.model).toMatchObject({ servedModels: null, modelsStatus: 404, chatStatus: 200 });
    } finally {
      await endpoint.close();
    }
  });

  it("reports a dead endpoint with the fix to start it, sending nothing else", async () => {
    const endpoint = await startEndpoint({});
    await endpoint.close();
    const check = await checkModel({ OPENAI_BASE_URL: endpoint.url });
    expect(check).toEqual({
      name: "model",
      status: "problem",
      detail: `GET ${endpoint.url}/models got no answer (ECONNREFUSED)`,
      fix: "Start the model server, or set OPENAI_BASE_URL to one that answers (`agentforge mock-model` serves a scripted one).",
    });
  });

  it("carries the findings as fields for --json", async () => {
    const endpoint = await startEndpoint({
      "/v1/models": recorded("models"),
      "/props": recorded("props"),
    });
    try {
      const check = await checkModel({
        OPENAI_BASE_URL: endpoint.url,
        AGENTFORGE_CONFIG: await configFile({
          prices: { "models/tools.gguf": { input_per_million: 0, output_per_million: 0 } },
        }),
      });
      expect(check.model).toEqual({
        endpoint: endpoint.url,
        model: "models/tools.gguf",
        modelSource: "served",
        fallbackModels: [],
        servedModels: ["models/tools.gguf"],
        modelsStatus: 200,
        chatStatus: null,
        contextWindow: 4096,
        contextWindowSource: "props",
        supportsTools: true,
        price: { inputPerMillion: 0, outputPerMillion: 0, source: "operator" },
      });
      expect(check.detail).toContain(
        "price: $0 input, $0 output per million tokens (operator config prices)",
      );
    } finally {
      await endpoint.close();
    }
  });

  it("agrees with the run on the model, its context size and its tool support", async () => {
    const server = await startMockModelServer({
      script: { steps: [{ type: "text", text: "ok" }] },
      profile: { contextWindow: 4096, supportsTools: false },
    });
    const env = {
      OPENAI_BASE_URL: server.url,
      AGENTFORGE_SANDBOX: "none",
      AGENTFORGE_DATA_DIR: join(dir, "data"),
    };
    try {
      const check = await checkModel(env);
      const runtime = await createRuntime({ env });
      try {
        expect(check.model?.model).toBe(runtime.model.model);
        expect(check.model?.contextWindow).toBe(runtime.model.capabilities?.contextWindow);
        expect(check.model?.supportsTools).toBe(runtime.model.capabilities?.supportsTools);
        expect(check.model).toMatchObject({ model: "mock-model", contextWindow: 4096, supportsTools: false });
      } finally {
        await runtime.close();
      }
    } finally {
      await server.close();
    }
  });
});
