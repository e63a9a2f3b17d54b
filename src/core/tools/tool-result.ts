/**
 * The one result type every tool returns. What the model sees is rendered from it in one place
 * (render-tool-result.ts); what a person sees (`display`) is kept apart.
 */
export const TOOL_ERROR_TYPES = [
  "FILE_NOT_FOUND",
  "INVALID_ARGUMENTS",
  "TOOL_NOT_FOUND",
  "COMMAND_TIMEOUT",
  "COMMAND_BLOCKED",
  "COMMAND_FAILED",
  "PERMISSION_DENIED",
  "OUTSIDE_WORKSPACE",
  "EDIT_NO_MATCH",
  "EDIT_AMBIGUOUS",
  "EDIT_NO_CHANGE",
  "PATCH_FAILED",
  "IS_DIRECTORY",
  "NOT_A_DIRECTORY",
  "FILE_TOO_LARGE",
  "BINARY_FILE",
  "TOOL_TIMEOUT",
  "SANDBOX_UNAVAILABLE",
  "MCP_ERROR",
  "SUBAGENT_FAILED",
  "CANCELLED",
  "INTERRUPTED",
  "INTERNAL_ERROR",
] as const;

export type ToolErrorType = (typeof TOOL_ERROR_TYPES)[number];

export interface ToolError {
  readonly error_type: ToolErrorType;
  readonly message: string;
  readonly recoverable: boolean;
}

export type ToolStatus = "success" | "error" | "refused" | "timeout" | "cancelled";

export interface ToolResult {
  readonly ok: boolean;
  readonly status: ToolStatus;
  /** The payload the model reads (before hygiene, redaction and fencing, which the registry applies). */
  readonly output: string;
  readonly error?: ToolError;
  /** One line for people and for the trace. */
  readonly summary: string;
  /** Paths (workspace-relative or absolute scratch paths) this call produced or changed. */
  readonly artifacts: readonly string[];
  /** Safe next steps the model can take. */
  readonly next_actions: readonly string[];
  /** A concrete hint for recovering from a failure. */
  readonly recovery_hint?: string;
  /** Structured facts for the harness (files read/changed, exit codes); never shown to the model as-is. */
  readonly metadata?: Readonly<Record<string, unknown>>;
}

export interface OkResultOptions {
  readonly summary: string;
  readonly artifacts?: readonly string[];
  readonly next_actions?: readonly string[];
  readonly metadata?: Readonly<Record<string, unknown>>;
}

export function okResult(output: string, options: OkResultOptions): ToolResult {
  return {
    ok: true,
    status: "success",
    output,
    summary: options.summary,
    artifacts: options.artifacts ?? [],
    next_actions: options.next_actions ?? [],
    ...(options.metadata ? { metadata: options.metadata } : {}),
  };
}

export interface ErrorResultOptions {
  readonly message: string;
  readonly recovery_hint: string;
  readonly next_actions: readonly string[];
  readonly recoverable?: boolean;
  readonly status?: Exclude<ToolStatus, "success">;
  readonly output?: string;
  readonly summary?: string;
  readonly artifacts?: readonly string[];
  readonly metadata?: Readonly<Record<string, unknown>>;
}

/** Every failure carries a typed error, a concrete hint and at least one safe next action. */
export function errorResult(errorType: ToolErrorType, options: ErrorResultOptions): ToolResult {
  return {
    ok: false,
    status: options.status ?? "error",
    output: options.output ?? "",
    error: { error_type: errorType, message: options.message, recoverable: options.recoverable ?? true },
    summary: options.summary ?? `${errorType}: ${options.message}`,
    artifacts: options.artifacts ?? [],
    next_actions: options.next_actions,
    recovery_hint: options.recovery_hint,
    ...(options.metadata ? { metadata: options.metadata } : {}),
  };
}
