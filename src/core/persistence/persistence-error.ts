export type PersistenceErrorCode =
  "SCHEMA_TOO_NEW" | "SCHEMA_INVALID" | "NOT_FOUND" | "INVALID_ID" | "IO_ERROR";

/** A harness failure while reading or writing the data directory. */
export class PersistenceError extends Error {
  override readonly name = "PersistenceError";
  readonly code: PersistenceErrorCode;
  /** The file or directory concerned, when there is one. */
  readonly path: string | undefined;

  constructor(
    code: PersistenceErrorCode,
    message: string,
    options: { readonly path?: string; readonly cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.path = options.path;
  }
}

/** Node's errno code of a failed fs call, without reading its message. */
export function errnoCode(error: unknown): string | undefined {
  if (typeof error === "object" && error !== null && "code" in error) {
    return typeof error.code === "string" ? error.code : undefined;
  }
  return undefined;
}

export function ioError(action: string, path: string, cause: unknown): PersistenceError {
  const reason = errnoCode(cause) ?? (cause instanceof Error ? cause.message : String(cause));
  return new PersistenceError("IO_ERROR", `could not ${action} ${path}: ${reason}`, { path, cause });
}
