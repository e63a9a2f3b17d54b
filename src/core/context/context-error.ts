export type ContextErrorCode = "CONTEXT_INVALID_OPTIONS" | "CONTEXT_COMPACTION_FAILED" | "CONTEXT_CANCELLED";

/** A harness failure of the context manager (bad options, a compaction that cannot succeed). */
export class ContextError extends Error {
  override readonly name = "ContextError";
  constructor(
    readonly code: ContextErrorCode,
    message: string,
    options?: { readonly cause?: unknown },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
  }
}
