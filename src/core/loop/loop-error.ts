export type LoopErrorCode = "TRANSCRIPT_INVALID";

/** A harness failure inside the loop itself (not the model's, not a tool's). */
export class LoopError extends Error {
  override readonly name = "LoopError";
  constructor(
    readonly code: LoopErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
  }
}
