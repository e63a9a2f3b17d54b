export type InstructionsErrorCode =
  "OUTSIDE_REPOSITORY" | "NOT_A_FILE" | "TOO_LARGE" | "INVALID_REF" | "GIT_FAILED" | "IO_ERROR";

/** A harness failure while reading repository instructions (AGENTS.md). */
export class InstructionsError extends Error {
  override readonly name = "InstructionsError";
  readonly code: InstructionsErrorCode;

  constructor(code: InstructionsErrorCode, message: string, options: { readonly cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
  }
}
