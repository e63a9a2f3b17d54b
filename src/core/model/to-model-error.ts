import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import { HttpTimeoutError } from "./fetch-with-http-timeout.js";
import { ModelError } from "./model-error.js";
import { parseRetryAfter } from "./parse-retry-after.js";
import { readContextOverflow } from "./read-context-overflow.js";

export interface FailureContext {
  readonly model: string;
  readonly baseURL: string;
  /** The caller's signal: when it fired, the failure is a cancellation whatever the SDK threw. */
  readonly callerSignal: AbortSignal | undefined;
  /** True when our own inference deadline aborted the attempt. */
  readonly isDeadlineExceeded: boolean;
  readonly inferenceMs: number;
  readonly httpMs: number;
  readonly now: () => number;
}

const RETRYABLE_STATUSES = new Set([408, 409, 429]);

/**
 * Turns whatever an attempt threw into a ModelError, by the SDK's error classes and HTTP status
 * only (never by message text). `retryable` drives the retry loop.
 */
export function toModelError(error: unknown, context: FailureContext): ModelError {
  if (error instanceof ModelError) return error;
  const where = `model ${context.model} at ${context.baseURL}`;
  if (context.callerSignal?.aborted === true) {
    return new ModelError("MODEL_CANCELLED", `The call to ${where} was cancelled.`, false, {
      cause: error,
    });
  }
  if (context.isDeadlineExceeded) {
    return new ModelError(
      "MODEL_TIMEOUT",
      `${where} did not finish answering within the inference timeout of ${context.inferenceMs} ms.`,
      true,
      { cause: error },
    );
  }
  const isHttpTimeout =
    error instanceof APIConnectionTimeoutError ||
    (error instanceof APIConnectionError && error.cause instanceof HttpTimeoutError);
  if (isHttpTimeout) {
    return new ModelError(
      "MODEL_TIMEOUT",
      `${where} did not respond within the HTTP timeout of ${context.httpMs} ms.`,
      true,
      { cause: error },
    );
  }
  // Checked after the deadline: the SDK reports any abort of its signal as a user abort.
  if (error instanceof APIUserAbortError) {
    return new ModelError("MODEL_CANCELLED", `The call to ${where} was aborted.`, false, {
      cause: error,
    });
  }
  if (error instanceof APIConnectionError) {
    return new ModelError(
      "MODEL_UNAVAILABLE",
      `Could not connect to ${where}: check OPENAI_BASE_URL and the network.`,
      true,
      { cause: error },
    );
  }
  if (isApiError(error)) return fromStatus(error, where, context);
  if (error instanceof SyntaxError) {
    return new ModelError("MODEL_BAD_RESPONSE", `${where} sent a response that is not JSON.`, true, {
      cause: error,
    });
  }
  // A stream cut mid-body surfaces as a plain error from the fetch implementation.
  const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return new ModelError("MODEL_UNAVAILABLE", `The call to ${where} failed (${detail}).`, true, {
    cause: error,
  });
}

function fromStatus(error: APIError, where: string, context: FailureContext): ModelError {
  const status = error.status;
  const serverMessage = error.message;
  const options = { cause: error, ...(status === undefined ? {} : { status }) };
  if (status === undefined) {
    // An error event inside a stream: the server failed mid-answer, worth another attempt.
    return new ModelError(
      "MODEL_BAD_RESPONSE",
      `${where} reported an error mid-stream: ${serverMessage}`,
      true,
      options,
    );
  }
  const overflow = readContextOverflow(error);
  if (overflow !== undefined) {
    const sizes = [
      overflow.promptTokens === undefined ? undefined : `the request has ${overflow.promptTokens} tokens`,
      overflow.contextWindow === undefined ? undefined : `the context holds ${overflow.contextWindow}`,
    ].filter((part) => part !== undefined);
    return new ModelError(
      "MODEL_CONTEXT_OVERFLOW",
      `${where} refused the request as too long for its context window${sizes.length > 0 ? ` (${sizes.join(", ")})` : ""}. Server said: ${serverMessage}`,
      false,
      { ...options, ...overflow },
    );
  }
  if (status === 401 || status === 403) {
    return new ModelError(
      "MODEL_AUTH_FAILED",
      `${where} refused our credentials (HTTP ${status}): set a valid OPENAI_API_KEY for this endpoint (and OPENAI_BASE_URL if you meant another one). Server said: ${serverMessage}`,
      false,
      options,
    );
  }
  if (status === 429 || status >= 500 || RETRYABLE_STATUSES.has(status)) {
    const retryAfterMs = parseRetryAfter(error.headers, context.now);
    return new ModelError(
      status === 429 ? "MODEL_RATE_LIMITED" : "MODEL_UNAVAILABLE",
      `${where} answered HTTP ${status}: ${serverMessage}`,
      true,
      retryAfterMs === undefined ? options : { ...options, retryAfterMs },
    );
  }
  if (status === 404) {
    return new ModelError(
      "MODEL_UNAVAILABLE",
      `${where} was not found (HTTP 404): set AGENTFORGE_MODEL (or AGENTFORGE_FALLBACK_MODELS) to a model this endpoint serves, or fix OPENAI_BASE_URL. Server said: ${serverMessage}`,
      false,
      options,
    );
  }
  return new ModelError(
    "MODEL_BAD_RESPONSE",
    `${where} rejected the request (HTTP ${status}): ${serverMessage}`,
    false,
    options,
  );
}

/** Narrows to APIError with its default type arguments (instanceof yields `any` ones). */
function isApiError(error: unknown): error is APIError {
  return error instanceof APIError;
}
