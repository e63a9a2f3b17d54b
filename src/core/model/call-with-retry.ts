import { setTimeout as delay } from "node:timers/promises";
import type { CircuitBreaker } from "./create-circuit-breaker.js";
import { ModelError } from "./model-error.js";
import type { ModelCallOptions } from "./model-types.js";
import type { BackoffOptions } from "./parse-retry-after.js";
import { computeRetryDelay } from "./parse-retry-after.js";

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export const defaultSleep: Sleep = async (ms, signal) => {
  await delay(ms, undefined, signal === undefined ? undefined : { signal });
};

export interface RetrySettings extends BackoffOptions {
  readonly maxAttempts: number;
  readonly sleep: Sleep;
}

export type RetryOutcome<T> =
  | { readonly kind: "answered"; readonly value: T; readonly attempts: number }
  | { readonly kind: "failed"; readonly error: ModelError; readonly attempts: number }
  /** The circuit refused even the first attempt: nothing was sent. */
  | { readonly kind: "skipped"; readonly attempts: 0 };

/**
 * Tries one model until it answers, fails for good, runs out of attempts or its circuit opens.
 * Cancellation and auth failures are thrown: they end the whole call, not just this model.
 */
export async function callWithRetry<T>(
  model: string,
  attempt: () => Promise<T>,
  breaker: CircuitBreaker,
  settings: RetrySettings,
  options: Pick<ModelCallOptions, "signal" | "onRetry">,
): Promise<RetryOutcome<T>> {
  let attempts = 0;
  let lastError: ModelError | undefined;
  for (;;) {
    if (!breaker.tryAcquire()) {
      // Another call opened the circuit while this one was waiting to retry.
      if (lastError === undefined) return { kind: "skipped", attempts: 0 };
      return { kind: "failed", error: lastError, attempts };
    }
    attempts += 1;
    try {
      const value = await attempt();
      breaker.recordSuccess();
      return { kind: "answered", value, attempts };
    } catch (thrown: unknown) {
      const error =
        thrown instanceof ModelError
          ? thrown
          : new ModelError("MODEL_BAD_RESPONSE", `model ${model} failed unexpectedly`, false, {
              cause: thrown,
            });
      lastError = error;
      if (isAboutModelHealth(error)) breaker.recordFailure();
      else breaker.recordNeutral();
      if (error.code === "MODEL_CANCELLED" || error.code === "MODEL_AUTH_FAILED") throw error;
      const isLastAttempt = attempts >= settings.maxAttempts;
      // An open circuit means this model is judged down: stop here and let the caller fall back.
      if (!error.retryable || isLastAttempt || breaker.state() !== "closed") {
        return { kind: "failed", error, attempts };
      }
      const delayMs = computeRetryDelay(attempts, error.retryAfterMs, settings);
      // `attempt` is the number of the attempt about to be made (2 for the first retry).
      options.onRetry?.({ model, attempt: attempts + 1, delayMs, reason: error.message });
      await sleepOrCancel(settings.sleep, delayMs, options.signal, model);
    }
  }
}

/** A refused request (400, 422) or a cancellation says nothing about whether the model is up. */
function isAboutModelHealth(error: ModelError): boolean {
  if (error.code === "MODEL_CANCELLED" || error.code === "MODEL_AUTH_FAILED") return false;
  if (error.code === "MODEL_CONTEXT_OVERFLOW") return false;
  return !(error.code === "MODEL_BAD_RESPONSE" && !error.retryable);
}

async function sleepOrCancel(
  sleep: Sleep,
  ms: number,
  signal: AbortSignal | undefined,
  model: string,
): Promise<void> {
  try {
    await sleep(ms, signal);
  } catch (error: unknown) {
    if (signal?.aborted === true) {
      throw new ModelError("MODEL_CANCELLED", `The call to model ${model} was cancelled.`, false, {
        cause: error,
      });
    }
    throw error;
  }
  if (signal?.aborted === true) {
    throw new ModelError("MODEL_CANCELLED", `The call to model ${model} was cancelled.`, false);
  }
}
