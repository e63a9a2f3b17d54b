import type { ToolKind } from "./tool.js";

/** What the registry asks the approval policy before a tool runs. */
export interface ApprovalRequest {
  readonly toolName: string;
  readonly kind: ToolKind;
  /** Set for shell tools: the command line, judged by the parsed-bash policy. */
  readonly command?: string;
  /** Set for shell tools: the folder the command starts in, absolute or relative to the workspace root. */
  readonly cwd?: string;
  /** Absolute paths a write would touch, when the tool can tell before running. */
  readonly paths?: readonly string[];
  /** True for tools that come from an MCP server. */
  readonly isMcp?: boolean;
  /** True when the operator marked the tool's source read-only. */
  readonly isReadOnlySource?: boolean;
}

export interface ApprovalDecision {
  readonly allowed: boolean;
  /** Why, in words for the model and the trace. */
  readonly reason: string;
  /** What the model can do instead when refused. */
  readonly suggestion?: string;
  /** Parsed facts for the trace (e.g. the command's parts and their classification). */
  readonly details?: Readonly<Record<string, unknown>>;
}

/**
 * The approval seam of the registry. The full policy lives in src/core/policy; a gate never hangs:
 * where nobody can be asked it refuses at once.
 */
export interface ApprovalGate {
  decide(request: ApprovalRequest): Promise<ApprovalDecision>;
}
