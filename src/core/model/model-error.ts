export type ModelErrorCode =
  | "MODEL_UNAVAILABLE"
  | "MODEL_TIMEOUT"
  | "MODEL_RATE_LIMITED"
  | "MODEL_BAD_RESPONSE"
  | "MODEL_AUTH_FAILED"
  | "MODEL_CIRCUIT_OPEN"
  | "MODEL_CANCELLED";

/** A harness failure talking to a model. `retryable` tells the retry loop whether to try again. */
export class ModelError extends Error {
  override readonly name = "ModelError";
  constructor(
    readonly code: ModelErrorCode,
    message: string,
    readonly retryable: boolean,
    options?: { cause?: unknown; readonly retryAfterMs?: number; readonly status?: number },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.retryAfterMs = options?.retryAfterMs;
    this.status = options?.status;
  }
  readonly retryAfterMs: number | undefined;
  readonly status: number | undefined;
}
