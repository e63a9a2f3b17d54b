/** Why a checkout, commit or push could not be done; the message never holds the token. */
export type WorkspaceErrorCode =
  | "CLONE_FAILED"
  | "FETCH_FAILED"
  | "REF_NOT_FOUND"
  | "INVALID_REF"
  | "CHECKOUT_FAILED"
  | "CHANGES_NOT_CARRIED"
  | "INVALID_REMOTE_URL"
  | "CANCELLED";

export class WorkspaceError extends Error {
  override readonly name = "WorkspaceError";
  readonly code: WorkspaceErrorCode;

  constructor(code: WorkspaceErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}
