/** Why the host's git did not do what was asked; the message never holds a token. */
export type HostGitErrorCode =
  /** git exited with a non-zero status. */
  | "GIT_FAILED"
  /** No git on PATH. */
  | "GIT_NOT_FOUND"
  | "GIT_TIMEOUT"
  | "GIT_CANCELLED"
  /** The repository's git directory is one a sandboxed command could have written. */
  | "UNSAFE_REPOSITORY";

export class HostGitError extends Error {
  override readonly name = "HostGitError";
  readonly code: HostGitErrorCode;
  /** git's exit status, for GIT_FAILED. */
  readonly exitCode: number | undefined;
  /** What git printed, token removed from stderr. */
  readonly stderr: string;
  readonly stdout: string;

  constructor(
    code: HostGitErrorCode,
    message: string,
    options: {
      readonly cause?: unknown;
      readonly exitCode?: number;
      readonly stderr?: string;
      readonly stdout?: string;
    } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.exitCode = options.exitCode;
    this.stderr = options.stderr ?? "";
    this.stdout = options.stdout ?? "";
  }
}

export function isHostGitError(error: unknown): error is HostGitError {
  return error instanceof HostGitError;
}
