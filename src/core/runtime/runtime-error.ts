export type RuntimeErrorCode = "CONFIG_INVALID" | "MODEL_CONFIG_INVALID";

/** A door cannot start: the message says which setting to fix. */
export class RuntimeError extends Error {
  override readonly name = "RuntimeError";
  constructor(
    readonly code: RuntimeErrorCode,
    message: string,
    options?: { readonly cause?: unknown },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
  }
}
