export type IntakeThreadErrorCode = "INTAKE_THREAD_FAILED" | "INTAKE_THREAD_ONLY";

/**
 * A harness failure of threaded intake: the intake thread could not start or stopped (its cause
 * says why: the journal cannot be read, the port is taken, build/ is missing), or a step only the
 * intake thread may take was asked of the main thread.
 */
export class IntakeThreadError extends Error {
  override readonly name = "IntakeThreadError";
  readonly code: IntakeThreadErrorCode;

  constructor(code: IntakeThreadErrorCode, message: string, options: { readonly cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
  }
}
