import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { z } from "zod";
import type { ModelCapabilities } from "./model-types.js";

export interface ModelServerFacts extends ModelCapabilities {
  /** Model names the endpoint serves, in its order (`/v1/models`). */
  readonly servedModels: readonly string[];
  /** Where contextWindow came from, for the operator (doctor, start-up notes). */
  readonly contextWindowSource?: "props" | "models" | "models-training";
}

export type ModelServerProbe =
  | { readonly success: true; readonly value: ModelServerFacts }
  | {
      readonly success: false;
      readonly error: string;
      /** The HTTP status `/v1/models` answered with, when it answered at all. */
      readonly status?: number;
      /** What the request failed with when no answer came (the socket's error is on its chain). */
      readonly cause?: unknown;
    };

export interface ProbeModelServerOptions {
  /** The chat-completions base URL, usually ending in `/v1`. */
  readonly baseURL: string;
  readonly apiKey?: string;
  readonly timeoutMs?: number;
  /** Default: one connection per request, closed after it, so no idle socket outlives the probe. */
  readonly fetch?: typeof fetch;
}

const positive = z.number().int().positive();

/*
 * The shapes servers really send. llama.cpp: `data[].meta.n_ctx` (the slot's context) and
 * `meta.n_ctx_train` (what the model was trained on); vLLM: `data[].max_model_len`. Everything
 * but the id is optional: plain OpenAI-compatible servers send only ids.
 */
const modelsSchema = z.looseObject({
  data: z.array(
    z.looseObject({
      id: z.string().min(1),
      max_model_len: positive.optional().catch(undefined),
      meta: z
        .looseObject({
          n_ctx: positive.optional().catch(undefined),
          n_ctx_train: positive.optional().catch(undefined),
        })
        .nullable()
        .optional()
        .catch(undefined),
    }),
  ),
});

/** llama.cpp's `/props`, served beside `/v1`: the slot's context and the template's capabilities. */
const propsSchema = z.looseObject({
  default_generation_settings: z
    .looseObject({ n_ctx: positive.optional().catch(undefined) })
    .optional()
    .catch(undefined),
  chat_template_caps: z
    .looseObject({
      supports_tools: z.boolean().optional().catch(undefined),
      supports_tool_calls: z.boolean().optional().catch(undefined),
    })
    .optional()
    .catch(undefined),
});

/**
 * Asks an endpoint what it serves: the model names, the context window and (llama.cpp) whether
 * its chat template takes tools. `/v1/models` must answer; `/props` is optional. Called once per
 * endpoint when the runtime is built; the doctor can report the same facts.
 */
export async function probeModelServer(options: ProbeModelServerOptions): Promise<ModelServerProbe> {
  const fetchFunction = options.fetch ?? fetchWithoutKeepAlive;
  const base = options.baseURL.replace(/\/+$/, "");
  const get = (url: string) => getJson(fetchFunction, url, options.apiKey, options.timeoutMs ?? 10_000);
  const models = await get(`${base}/models`);
  if (!models.success) {
    return {
      success: false,
      error: `${base}/models: ${models.error}`,
      ...(models.status === undefined ? {} : { status: models.status }),
      ...(models.cause === undefined ? {} : { cause: models.cause }),
    };
  }
  const parsedModels = modelsSchema.safeParse(models.value);
  if (!parsedModels.success) {
    return { success: false, error: `${base}/models did not answer with a model list (data[].id)` };
  }
  const servedModels = parsedModels.data.data.map((model) => model.id);
  const first = parsedModels.data.data[0];
  // `/props` sits at the server's root, not under `/v1`.
  const props = await get(`${base.replace(/\/v1$/, "")}/props`);
  const parsedProps = props.success ? propsSchema.safeParse(props.value) : undefined;
  const propsValue = parsedProps?.success === true ? parsedProps.data : undefined;
  const context = chooseContextWindow(
    propsValue?.default_generation_settings?.n_ctx,
    first?.meta?.n_ctx ?? first?.max_model_len,
    first?.meta?.n_ctx_train,
  );
  const caps = propsValue?.chat_template_caps;
  const supportsTools =
    caps === undefined
      ? undefined
      : caps.supports_tool_calls === false || caps.supports_tools === false
        ? false
        : caps.supports_tool_calls === true || caps.supports_tools === true
          ? true
          : undefined;
  return {
    success: true,
    value: { servedModels, ...context, ...(supportsTools === undefined ? {} : { supportsTools }) },
  };
}

function chooseContextWindow(
  fromProps: number | undefined,
  fromModels: number | undefined,
  fromTraining: number | undefined,
): Pick<ModelServerFacts, "contextWindow" | "contextWindowSource"> {
  if (fromProps !== undefined) return { contextWindow: fromProps, contextWindowSource: "props" };
  if (fromModels !== undefined) return { contextWindow: fromModels, contextWindowSource: "models" };
  // Only an upper bound (the server may run a smaller context), but closer than a guess.
  if (fromTraining !== undefined)
    return { contextWindow: fromTraining, contextWindowSource: "models-training" };
  return {};
}

async function getJson(
  fetchFunction: typeof fetch,
  url: string,
  apiKey: string | undefined,
  timeoutMs: number,
): Promise<
  { success: true; value: unknown } | { success: false; error: string; status?: number; cause?: unknown }
> {
  let response: Response;
  try {
    response = await fetchFunction(url, {
      headers: {
        accept: "application/json",
        ...(apiKey === undefined || apiKey === "" ? {} : { authorization: `Bearer ${apiKey}` }),
      },
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    return {
      success: false,
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
      cause: error,
    };
  }
  if (!response.ok) {
    await response.body?.cancel();
    return { success: false, error: `HTTP ${response.status}`, status: response.status };
  }
  try {
    const value: unknown = await response.json();
    return { success: true, value };
  } catch (error) {
    return {
      success: false,
      error: `not JSON (${error instanceof Error ? error.message : String(error)})`,
      status: response.status,
    };
  }
}

/*
 * The chat requests that follow reuse the global fetch's pooled connections; a probe socket left
 * idle there can be closed by the server just as a chat request (a POST, never retried by the
 * pool) picks it up. The probe uses connections of its own, closed after each answer.
 */
const fetchWithoutKeepAlive: typeof fetch = (input, init) => {
  const url = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  const headers = Object.fromEntries(new Headers(init?.headers).entries());
  return new Promise<Response>((resolve, reject) => {
    const outgoing = send(
      url,
      { method: "GET", headers, agent: false, signal: init?.signal ?? undefined },
      (incoming) => {
        const parts: Buffer[] = [];
        incoming.on("data", (part: Buffer) => parts.push(part));
        incoming.on("error", reject);
        incoming.on("end", () => {
          const status = incoming.statusCode ?? 500;
          const hasBody = status !== 204 && status !== 205 && status !== 304;
          resolve(
            new Response(hasBody ? Buffer.concat(parts) : null, { status: status < 200 ? 502 : status }),
          );
        });
      },
    );
    outgoing.on("error", reject);
    outgoing.end();
  });
};
