import type { OperatorConfig } from "../config/operator-config-schema.js";
import { findModelPrice, selectPriceTable, type ModelPrice, type PriceTable } from "../model/price-table.js";
import type { ModelServerFacts } from "../model/probe-model-server.js";
import type { ModelEnvironment } from "../model/read-model-environment.js";

/** The window assumed when neither the operator nor the server says how big it is. */
export const DEFAULT_CONTEXT_WINDOW = 128_000;

/** `operator-config`: its `model`; `environment`: AGENTFORGE_MODEL; `served`: the server's first. */
export type ModelNameSource = "operator-config" | "environment" | "served" | "default";
/** `operator`: `-c` or `context_window`; `models-training`: the size the model was trained on. */
export type ContextWindowSource = "operator" | "props" | "models" | "models-training" | "default";

/** What a run will use for its model, decided in one place so `doctor` and the run agree. */
export interface ModelSettings {
  readonly model: string;
  readonly modelSource: ModelNameSource;
  readonly fallbackModels: readonly string[];
  /** Undefined when nobody said: the run then assumes DEFAULT_CONTEXT_WINDOW. */
  readonly contextWindow: number | undefined;
  readonly contextWindowSource: ContextWindowSource;
  /** What the server reported about tool calls (llama.cpp's chat template caps); undefined: not reported. */
  readonly supportsTools: boolean | undefined;
  /** The operator's prices, then OpenAI's list prices on OpenAI's own endpoint only. */
  readonly prices: PriceTable;
  readonly price: { readonly value: ModelPrice; readonly source: "operator" | "table" } | undefined;
}

export interface ModelSettingsInput {
  readonly config: Pick<OperatorConfig, "model" | "fallback_models" | "prices">;
  readonly environment: ModelEnvironment;
  /** The door's or operator's context size (`-c`, `context_window`); it wins over the server's. */
  readonly contextWindow?: number | undefined;
  /** What probeModelServer found. Used only off OpenAI's own endpoint, the one a run probes. */
  readonly facts: ModelServerFacts | undefined;
}

/** A run asks the endpoint what it serves unless it is OpenAI's default one (createRuntime). */
function isServerProbed(baseURL: string | undefined): boolean {
  return baseURL !== undefined;
}

export function readOperatorPrices(prices: OperatorConfig["prices"]): PriceTable {
  return Object.fromEntries(
    Object.entries(prices).map(([name, price]) => [
      name,
      {
        inputPerMillion: price.input_per_million,
        outputPerMillion: price.output_per_million,
        ...(price.cached_input_per_million === undefined
          ? {}
          : { cachedInputPerMillion: price.cached_input_per_million }),
      },
    ]),
  );
}

/**
 * The model a run asks for and what it knows about it. A named model (operator config, then
 * AGENTFORGE_MODEL) is used as named; with none named, a probed server's first served model,
 * else the default name.
 */
export function resolveModelSettings(input: ModelSettingsInput): ModelSettings {
  const { config, environment } = input;
  const facts = isServerProbed(environment.baseURL) ? input.facts : undefined;
  const servedModel = facts?.servedModels[0];
  const [model, modelSource]: [string, ModelNameSource] =
    config.model !== undefined
      ? [config.model, "operator-config"]
      : environment.isModelNamed
        ? [environment.model, "environment"]
        : servedModel !== undefined
          ? [servedModel, "served"]
          : [environment.model, "default"];
  const [contextWindow, contextWindowSource]: [number | undefined, ContextWindowSource] =
    input.contextWindow !== undefined
      ? [input.contextWindow, "operator"]
      : facts?.contextWindow !== undefined
        ? [facts.contextWindow, facts.contextWindowSource ?? "models"]
        : [undefined, "default"];
  const operatorPrices = readOperatorPrices(config.prices);
  const prices = selectPriceTable(operatorPrices, environment.baseURL);
  const found = findModelPrice(prices, model);
  return {
    model,
    modelSource,
    fallbackModels: config.fallback_models.length > 0 ? config.fallback_models : environment.fallbackModels,
    contextWindow,
    contextWindowSource,
    supportsTools: facts?.supportsTools,
    prices,
    price:
      found === undefined
        ? undefined
        : {
            value: found,
            source: findModelPrice(operatorPrices, model) === found ? "operator" : "table",
          },
  };
}
