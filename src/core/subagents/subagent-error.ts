export type SubagentErrorCode = "SUBAGENT_INVALID_CONFIG";

/** A harness failure setting up subagents (a bad operator definition). Failures of a run are tool results. */
export class SubagentError extends Error {
  override readonly name = "SubagentError";
  readonly code: SubagentErrorCode;

  constructor(code: SubagentErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}
