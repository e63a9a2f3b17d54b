export type ModelErrorCode =
  | "MODEL_UNAVAILABLE"
  | "MODEL_TIMEOUT"
  | "MODEL_RATE_LIMITED"
  | "MODEL_BAD_RESPONSE"
  | "MODEL_AUTH_FAILED"
  | "MODEL_CIRCUIT_OPEN"
  | "MODEL_CANCELLED"
  /** The request does not fit the server's context window; compacting may help, retrying as is cannot. */
  | "MODEL_CONTEXT_OVERFLOW"
  /** The server cannot take tool calls for this model (its chat template has no tool support). */
  | "MODEL_TOOLS_UNSUPPORTED";

export interface ModelErrorOptions {
  cause?: unknown;
  readonly retryAfterMs?: number;
  readonly status?: number;
  readonly contextWindow?: number;
  readonly promptTokens?: number;
}

/** A harness failure talking to a model. `retryable` tells the retry loop whether to try again. */
export class ModelError extends Error {
  override readonly name = "ModelError";
  constructor(
    readonly code: ModelErrorCode,
    message: string,
    readonly retryable: boolean,
    options?: ModelErrorOptions,
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.retryAfterMs = options?.retryAfterMs;
    this.status = options?.status;
    this.contextWindow = options?.contextWindow;
    this.promptTokens = options?.promptTokens;
  }
  readonly retryAfterMs: number | undefined;
  readonly status: number | undefined;
  /** For MODEL_CONTEXT_OVERFLOW: the server's context size, when it said. */
  readonly contextWindow: number | undefined;
  /** For MODEL_CONTEXT_OVERFLOW: the request's size in the server's tokens, when it said. */
  readonly promptTokens: number | undefined;
}
