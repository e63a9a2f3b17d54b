/** Why the sandbox refused or could not run a command; the shell tool turns it into a typed result. */
export type SandboxErrorCode = "SANDBOX_UNAVAILABLE" | "SANDBOX_ENV_REFUSED" | "SANDBOX_BAD_OPTIONS";

export class SandboxError extends Error {
  override readonly name = "SandboxError";
  readonly code: SandboxErrorCode;
  /** What the operator can do about it, in one sentence. */
  readonly fix: string;

  constructor(code: SandboxErrorCode, message: string, fix: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.fix = fix;
  }
}

export function isSandboxError(value: unknown): value is SandboxError {
  return value instanceof SandboxError;
}
