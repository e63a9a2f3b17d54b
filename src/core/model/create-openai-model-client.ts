import type { Sleep } from "./call-with-retry.js";
import { callWithRetry, defaultSleep } from "./call-with-retry.js";
import { fetchWithHttpTimeout } from "./fetch-with-http-timeout.js";
import { EMPTY_USAGE, toToolCalls } from "./convert-messages.js";
import type { CircuitBreaker } from "./create-circuit-breaker.js";
import { createCircuitBreaker } from "./create-circuit-breaker.js";
import { ModelError } from "./model-error.js";
import type {
  GenerationSettings,
  ModelCallOptions,
  ModelCapabilities,
  ModelClient,
  ModelRequest,
  ModelResponse,
} from "./model-types.js";
import type { PriceTable } from "./price-table.js";
import { computeCost, DEFAULT_PRICE_TABLE } from "./price-table.js";
import type { OpenAI } from "openai";
import type { AttemptSettings, requestCompletion } from "./request-completion.js";

export const DEFAULT_BASE_URL = "https://api.openai.com/v1";

/** Sent when the operator sets no cap, so a model that does not stop cannot fill the window. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 4096;

export interface OpenAIModelClientOptions {
  readonly model: string;
  readonly fallbackModels?: readonly string[];
  readonly apiKey?: string;
  readonly baseURL?: string;
  readonly timeouts?: {
    /** Whole attempt, streamed body included (default 5 min). */
    readonly inferenceMs?: number;
    /** Connecting and receiving response headers, per HTTP request (default 60 s). */
    readonly httpMs?: number;
  };
  readonly retry?: {
    /** Attempts per model, the first included (default 4). */
    readonly maxAttempts?: number;
    readonly baseDelayMs?: number;
    /** Also caps a server's Retry-After. */
    readonly maxDelayMs?: number;
  };
  readonly circuitBreaker?: { readonly failureThreshold?: number; readonly coolDownMs?: number };
  readonly prices?: PriceTable;
  /** Output cap (default DEFAULT_MAX_OUTPUT_TOKENS) and temperature (default: the server's). */
  readonly generation?: GenerationSettings;
  /** What a probe of the endpoint found (probe-model-server.ts). */
  readonly capabilities?: ModelCapabilities;
  readonly random?: () => number;
  readonly sleep?: Sleep;
  readonly now?: () => number;
  readonly fetch?: typeof fetch;
}

/**
 * The model adapter for any OpenAI-compatible chat-completions endpoint. The SDK's own retries
 * are off: this client retries (backoff with full jitter, Retry-After), falls back along
 * `fallbackModels`, and keeps one circuit breaker per model for its whole lifetime, so a model
 * that keeps failing is skipped on later turns of the same run.
 */
export function createOpenAIModelClient(options: OpenAIModelClientOptions): ModelClient {
  const baseURL = options.baseURL ?? DEFAULT_BASE_URL;
  const now = options.now ?? Date.now;
  const httpMs = options.timeouts?.httpMs ?? 60_000;
  const inferenceMs = options.timeouts?.inferenceMs ?? 300_000;
  const apiKey = resolveApiKey(options.apiKey, options.baseURL);
  const retrySettings = {
    maxAttempts: Math.max(1, options.retry?.maxAttempts ?? 4),
    baseDelayMs: options.retry?.baseDelayMs ?? 500,
    maxDelayMs: options.retry?.maxDelayMs ?? 30_000,
    random: options.random ?? Math.random,
    sleep: options.sleep ?? defaultSleep,
  };
  const prices = options.prices ?? DEFAULT_PRICE_TABLE;
  const chain = [...new Set([options.model, ...(options.fallbackModels ?? [])])];
  const breakers = new Map<string, CircuitBreaker>(
    chain.map((model) => [model, createCircuitBreaker({ ...options.circuitBreaker, now })]),
  );
  const generation: GenerationSettings = {
    maxOutputTokens: options.generation?.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
    ...(options.generation?.temperature === undefined ? {} : { temperature: options.generation.temperature }),
  };
  // The SDK loads at the first call: a process that makes a client but has not called a model
  // yet (an idle App server) does not carry it.
  let loading: Promise<Attempt> | undefined;
  const loadAttempt = (): Promise<Attempt> =>
    (loading ??= loadSdkModules().then(({ OpenAI, requestCompletion }) => {
      const sdk = new OpenAI({
        apiKey,
        baseURL,
        maxRetries: 0,
        // Our fetch wrapper enforces httpMs; the SDK's own timer is only a backstop behind it.
        timeout: httpMs + 1_000,
        fetch: fetchWithHttpTimeout(options.fetch ?? globalThis.fetch, httpMs),
        // Explicit nulls keep the SDK from reading OPENAI_ORG_ID / OPENAI_PROJECT_ID by itself:
        // configuration is read once, at the door.
        organization: null,
        project: null,
      });
      return { settings: { sdk, baseURL, inferenceMs, httpMs, now, generation }, requestCompletion };
    }));

  async function complete(request: ModelRequest, callOptions: ModelCallOptions = {}): Promise<ModelResponse> {
    if (callOptions.signal?.aborted === true) {
      throw new ModelError("MODEL_CANCELLED", "The model call was cancelled before it began.", false);
    }
    const attempt = await loadAttempt();
    const failures: { model: string; error: ModelError | "circuit open" }[] = [];
    let attempts = 0;
    for (const [index, model] of chain.entries()) {
      const breaker = breakers.get(model) ?? createCircuitBreaker();
      const outcome = await callWithRetry(
        model,
        () =>
          attempt.requestCompletion(
            attempt.settings,
            model,
            request,
            callOptions.signal,
            callOptions.onTextDelta,
          ),
        breaker,
        retrySettings,
        callOptions,
      );
      attempts += outcome.attempts;
      if (outcome.kind === "answered") {
        const answer = outcome.value;
        const usage = answer.usage ?? EMPTY_USAGE;
        const cost = computeCost(prices, model, usage);
        const toolCalls = toToolCalls(answer.toolCalls, request.messages.length);
        return {
          message: {
            role: "assistant",
            content: answer.content,
            ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
          },
          finishReason: answer.finishReason,
          usage,
          model,
          costUsd: cost.costUsd,
          costKnown: cost.isKnown && answer.usage !== undefined,
          attempts,
        };
      }
      const failure = outcome.kind === "skipped" ? "circuit open" : outcome.error;
      failures.push({ model, error: failure });
      const next = chain[index + 1];
      if (next !== undefined) {
        callOptions.onFallback?.({
          from: model,
          to: next,
          reason: failure === "circuit open" ? failure : `${failure.code}: ${failure.message}`,
        });
      }
    }
    throw describeTotalFailure(failures, breakers, baseURL);
  }

  return {
    model: options.model,
    ...(options.capabilities === undefined ? {} : { capabilities: options.capabilities }),
    complete,
  };
}

interface SdkModules {
  readonly OpenAI: typeof OpenAI;
  readonly requestCompletion: typeof requestCompletion;
}

let sdkModules: Promise<SdkModules> | undefined;

/** One load per process, one module after the other: every client shares it. */
function loadSdkModules(): Promise<SdkModules> {
  sdkModules ??= (async () => {
    const { requestCompletion } = await import("./request-completion.js");
    // Already loaded by request-completion.js: this import is answered from the module cache.
    const { OpenAI } = await import("openai");
    return { OpenAI, requestCompletion };
  })();
  return sdkModules;
}

interface Attempt {
  readonly settings: AttemptSettings;
  readonly requestCompletion: typeof requestCompletion;
}

function resolveApiKey(apiKey: string | undefined, baseURL: string | undefined): string {
  if (apiKey !== undefined && apiKey !== "") return apiKey;
  // Local OpenAI-compatible servers (vLLM, Ollama) often need no key, but the SDK insists on one.
  if (baseURL !== undefined) return "no-key";
  throw new ModelError(
    "MODEL_AUTH_FAILED",
    "OPENAI_API_KEY is not set: set it to a key for the model endpoint, or set OPENAI_BASE_URL to a server that needs none.",
    false,
  );
}

function describeTotalFailure(
  failures: readonly { model: string; error: ModelError | "circuit open" }[],
  breakers: ReadonlyMap<string, CircuitBreaker>,
  baseURL: string,
): ModelError {
  const errors = failures.flatMap((failure) => (failure.error === "circuit open" ? [] : [failure.error]));
  const lines = failures.map((failure) => {
    if (failure.error !== "circuit open") {
      return `${failure.model}: ${failure.error.message.replace(/\.$/, "")}`;
    }
    const seconds = Math.ceil((breakers.get(failure.model)?.remainingCoolDownMs() ?? 0) / 1000);
    return `${failure.model}: skipped, circuit open after repeated failures (next trial in ${seconds} s)`;
  });
  const fix = `Check that OPENAI_BASE_URL (${baseURL}) is reachable, that OPENAI_API_KEY is valid for it, and that AGENTFORGE_MODEL / AGENTFORGE_FALLBACK_MODELS name models it serves.`;
  const cause = new AggregateError(errors, "every model failed");
  if (errors.length === 0) {
    const waits = failures.map((failure) => breakers.get(failure.model)?.remainingCoolDownMs() ?? 0);
    return new ModelError("MODEL_CIRCUIT_OPEN", `No model was tried: ${lines.join("; ")}. ${fix}`, false, {
      cause,
      retryAfterMs: Math.min(...waits),
    });
  }
  const codes = new Set(errors.map((error) => error.code));
  const [onlyCode] = codes;
  const code = codes.size === 1 && onlyCode !== undefined ? onlyCode : "MODEL_UNAVAILABLE";
  const status = errors.length === 1 ? errors[0]?.status : undefined;
  // Worth another try later only if every model failed in a way that can pass.
  const isRetryable = errors.every((error) => error.retryable);
  if (code === "MODEL_CONTEXT_OVERFLOW") {
    // Not a reachability problem: the loop compacts and says how big the context was.
    const first = errors[0];
    return new ModelError(code, `The request did not fit: ${lines.join("; ")}.`, false, {
      cause,
      ...(status === undefined ? {} : { status }),
      ...(first?.contextWindow === undefined ? {} : { contextWindow: first.contextWindow }),
      ...(first?.promptTokens === undefined ? {} : { promptTokens: first.promptTokens }),
    });
  }
  return new ModelError(code, `No model answered. ${lines.join("; ")}. ${fix}`, isRetryable, {
    cause,
    ...(status === undefined ? {} : { status }),
  });
}
