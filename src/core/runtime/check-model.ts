import { loadOperatorConfig } from "../config/load-operator-config.js";
import { TOOLS_UNSUPPORTED_FIX } from "../loop/check-model-answer.js";
import { readModelEnvironment } from "../model/read-model-environment.js";
import type { DoctorCheck } from "./doctor-check.js";
import { probeModelEndpoint } from "./probe-model-endpoint.js";
import {
  DEFAULT_CONTEXT_WINDOW,
  resolveModelSettings,
  type ContextWindowSource,
  type ModelNameSource,
  type ModelSettings,
} from "./resolve-model-settings.js";

/** What `doctor --json` carries about the model: what a run on this endpoint will use. */
export interface ModelReport {
  /** The chat-completions base URL. */
  readonly endpoint: string;
  readonly model: string;
  readonly modelSource: ModelNameSource;
  readonly fallbackModels: readonly string[];
  /** What `/models` lists; null when it has no listing. */
  readonly servedModels: readonly string[] | null;
  /** What `/models` answered; null when it answered with something that is not a model list. */
  readonly modelsStatus: number | null;
  /** The one-token chat request's status, when `/models` had no listing. */
  readonly chatStatus: number | null;
  /** The window the run works in (the default when nobody said). */
  readonly contextWindow: number;
  readonly contextWindowSource: ContextWindowSource;
  /** What the server reported (llama.cpp's chat template caps in `/props`); null: not reported. */
  readonly supportsTools: boolean | null;
  /** US dollars per million tokens; null: unknown, and costs are shown as unknown. */
  readonly price: {
    readonly inputPerMillion: number;
    readonly outputPerMillion: number;
    readonly cachedInputPerMillion?: number;
    readonly source: "operator" | "table";
  } | null;
}

const MODEL_SOURCES: Record<ModelNameSource, string> = {
  "operator-config": "named in the operator config",
  environment: "AGENTFORGE_MODEL",
  served: "none named: the first model the server serves",
  default: "none named: the default",
};

const CONTEXT_SOURCES: Record<ContextWindowSource, string> = {
  operator: "context_window in the operator config",
  props: "server /props",
  models: "server /models",
  "models-training": "server /models: the size the model was trained on, an upper bound",
  default: "assumed: neither the operator config nor the server says",
};

/**
 * Asks the endpoint the way a run does (createRuntime: `/v1/models` and `/props`, then the same
 * choice of model, context size and price) and says what a run will use.
 */
export async function checkModel(env: NodeJS.ProcessEnv): Promise<DoctorCheck> {
  const environment = readModelEnvironment(env);
  if (!environment.success)
    return {
      name: "model",
      status: "problem",
      detail: environment.error,
      fix: "Fix the variable named above.",
    };
  const { apiKey, baseURL } = environment.value;
  if (!apiKey && !baseURL) {
    return {
      name: "model",
      status: "problem",
      detail: "no OPENAI_API_KEY and no OPENAI_BASE_URL",
      fix: "Set OPENAI_API_KEY, or OPENAI_BASE_URL for a local OpenAI-compatible server (try `agentforge mock-model`).",
    };
  }
  // An unreadable config is the config check's problem; the model is judged without it.
  const loaded = await loadOperatorConfig(env.AGENTFORGE_CONFIG);
  const config = loaded.success ? loaded.value : { model: undefined, fallback_models: [], prices: {} };
  const contextWindow = loaded.success ? loaded.value.context_window : undefined;
  const named = resolveModelSettings({
    config,
    environment: environment.value,
    contextWindow,
    facts: undefined,
  });
  const endpoint = await probeModelEndpoint(env, { model: named.model });
  if (!endpoint.success)
    return { name: "model", status: "problem", detail: endpoint.error, fix: endpoint.fix };
  const settings = resolveModelSettings({
    config,
    environment: environment.value,
    contextWindow,
    facts: endpoint.facts,
  });
  const report = toReport(settings, endpoint);
  const asked =
    endpoint.chat === undefined
      ? `GET /models answered 200: ${listModels(endpoint.models)}`
      : `GET /models ${endpoint.status === undefined ? "did not list models" : `answered ${endpoint.status}`}; a one-token chat request (max_tokens 1) answered ${endpoint.chat.status}`;
  const parts = [
    `${settings.model} (${MODEL_SOURCES[settings.modelSource]}) at ${endpoint.url.replace(/\/models$/, "")}`,
    ...(settings.fallbackModels.length > 0 ? [`fallbacks ${settings.fallbackModels.join(", ")}`] : []),
    asked,
    `context ${report.contextWindow} tokens (${CONTEXT_SOURCES[settings.contextWindowSource]})`,
    `tools: ${describeTools(settings.supportsTools)}`,
    `price: ${describePrice(settings)}`,
    ...(loaded.success
      ? []
      : ["the operator config does not load (see the config check): judged without it"]),
  ];
  const detail = parts.join("; ");
  if (settings.supportsTools === false)
    return { name: "model", status: "problem", detail, fix: TOOLS_UNSUPPORTED_FIX, model: report };
  const served = endpoint.models;
  const missing =
    served.length === 0
      ? []
      : [settings.model, ...settings.fallbackModels].filter((name) => !served.includes(name));
  if (missing.length > 0)
    return {
      name: "model",
      status: "warning",
      detail: `${detail}; not listed: ${missing.join(", ")}`,
      fix: "Set AGENTFORGE_MODEL (and AGENTFORGE_FALLBACK_MODELS) to models the endpoint serves.",
      model: report,
    };
  return { name: "model", status: "ok", detail, model: report };
}

function listModels(served: readonly string[]): string {
  if (served.length === 0) return "it lists no models";
  const more = served.length > 8 ? ` and ${served.length - 8} more` : "";
  return `it serves ${served.slice(0, 8).join(", ")}${more}`;
}

function describeTools(supportsTools: boolean | undefined): string {
  if (supportsTools === undefined) return "not reported";
  return supportsTools
    ? "supported (server /props chat_template_caps)"
    : "NOT supported (server /props chat_template_caps): a run stops at its first turn";
}

function describePrice(settings: ModelSettings): string {
  if (settings.price === undefined) return "unknown: costs are shown as unknown";
  const { value, source } = settings.price;
  const cached =
    value.cachedInputPerMillion === undefined ? "" : `, $${value.cachedInputPerMillion} cached input`;
  const from = source === "operator" ? "operator config prices" : "built-in OpenAI list price";
  return `$${value.inputPerMillion} input, $${value.outputPerMillion} output${cached} per million tokens (${from})`;
}

function toReport(
  settings: ModelSettings,
  endpoint: Extract<Awaited<ReturnType<typeof probeModelEndpoint>>, { success: true }>,
): ModelReport {
  return {
    endpoint: endpoint.url.replace(/\/models$/, ""),
    model: settings.model,
    modelSource: settings.modelSource,
    fallbackModels: settings.fallbackModels,
    servedModels: endpoint.chat === undefined ? endpoint.models : null,
    modelsStatus: endpoint.status ?? null,
    chatStatus: endpoint.chat?.status ?? null,
    contextWindow: settings.contextWindow ?? DEFAULT_CONTEXT_WINDOW,
    contextWindowSource: settings.contextWindowSource,
    supportsTools: settings.supportsTools ?? null,
    price:
      settings.price === undefined
        ? null
        : {
            inputPerMillion: settings.price.value.inputPerMillion,
            outputPerMillion: settings.price.value.outputPerMillion,
            ...(settings.price.value.cachedInputPerMillion === undefined
              ? {}
              : { cachedInputPerMillion: settings.price.value.cachedInputPerMillion }),
            source: settings.price.source,
          },
  };
}
