import type { ModelClient } from "../model/model-types.js";
import { ModelChoiceError } from "../run/model-choice-error.js";

export interface ModelChoice {
  /** The configured model and its fallbacks first, then the operator's `allowed_models`; no repeats. */
  readonly allowedModels: readonly string[];
  /** A client for one allowed model (the configured one is the runtime's own); throws for any other. */
  modelFor(name: string): ModelClient;
}

export interface ModelChoiceOptions {
  /** The runtime's own client, used for its own name. */
  readonly model: ModelClient;
  readonly fallbackModels: readonly string[];
  readonly allowedModels: readonly string[];
  /** Makes a client for another name with the runtime's endpoint, key and settings; absent when a client was given. */
  readonly createClient?: (name: string) => ModelClient;
}

/**
 * Which models a task may choose, and their clients: made once per name and reused, so a chosen
 * model keeps its circuit breaker across the runs of one process.
 */
export function createModelChoice(options: ModelChoiceOptions): ModelChoice {
  const allowedModels = [
    ...new Set([options.model.model, ...options.fallbackModels, ...options.allowedModels]),
  ];
  const clients = new Map<string, ModelClient>([[options.model.model, options.model]]);
  return {
    allowedModels,
    modelFor(name) {
      const known = clients.get(name);
      if (known !== undefined) return known;
      if (!allowedModels.includes(name))
        throw new ModelChoiceError(
          "MODEL_NOT_ALLOWED",
          `\`${name}\` is not one of the models this installation allows: ${allowedModels.join(", ")}.`,
          allowedModels,
        );
      if (options.createClient === undefined)
        throw new ModelChoiceError(
          "MODEL_NOT_ALLOWED",
          `\`${name}\` is allowed, but this runtime was given one model client and cannot make another.`,
          allowedModels,
        );
      const client = options.createClient(name);
      clients.set(name, client);
      return client;
    },
  };
}
