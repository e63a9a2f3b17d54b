export type AppStartErrorCode = "DEPENDENCY_UNAVAILABLE" | "CREDENTIALS_REFUSED";

/**
 * `serve` or `worker` cannot start: a service it needs is down (exit 69, EX_UNAVAILABLE) or it
 * refused the credentials (exit 64). The message names the variable and says what to do.
 */
export class AppStartError extends Error {
  override readonly name = "AppStartError";
  constructor(
    readonly code: AppStartErrorCode,
    /** The environment variable a person changes or checks. */
    readonly variable: string,
    message: string,
    options?: { readonly cause?: unknown },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
  }
}
