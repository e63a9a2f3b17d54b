import type { ApprovalMode } from "../policy/approval-mode.js";
import type { LoopBudgets } from "../loop/loop-budgets.js";
import type { ApprovalGate } from "../tools/approval-gate.js";
import type { ContentSafety } from "../tools/content-safety.js";
import { createToolRegistry, type AfterToolHook, type ToolRegistry } from "../tools/create-tool-registry.js";
import type { Tool } from "../tools/tool.js";
import { buildSystemPrompt } from "./build-system-prompt.js";

/** Plan mode is bounded harder than build mode. */
export const PLAN_MODE_MAX_TURNS = 8;

export interface SessionOptions {
  readonly workspaceRoot: string;
  readonly mode: "build" | "plan";
  readonly approvalMode: ApprovalMode;
  readonly allowPrefixes: readonly string[];
  /** Every tool the session could offer (files, shell, skills, MCP, subagents). */
  readonly tools: readonly Tool[];
  /** When set, only these tool names are offered and accepted. */
  readonly allowedTools?: readonly string[];
  /** Subagents and plan mode: only read tools, and shell limited to the read-only allowlist. */
  readonly readOnly?: boolean;
  readonly budgets: LoopBudgets;
  readonly safety: ContentSafety;
  /** Builds the approval gate for the session's effective approval mode and prefixes. */
  readonly createApprovalGate: (options: {
    readonly approvalMode: ApprovalMode;
    readonly allowPrefixes: readonly string[];
  }) => ApprovalGate;
  readonly fencingInstructions: string;
  readonly skillIndex?: string;
  readonly repositoryInstructions?: string;
  readonly role?: string;
  readonly afterToolHooks?: readonly AfterToolHook[];
  readonly maxOutputChars?: number;
  /** A tool call without a timeout of its own is stopped after this (the operator's `timeouts.tool_ms`). */
  readonly toolTimeoutMs?: number;
}

export interface Session {
  readonly workspaceRoot: string;
  readonly mode: "build" | "plan";
  readonly approvalMode: ApprovalMode;
  readonly isReadOnly: boolean;
  readonly budgets: LoopBudgets;
  readonly registry: ToolRegistry;
  readonly systemPrompt: string;
}

/**
 * Built before the first model call. The tool set is filtered by mode and by the allowed list, and
 * the same filter is enforced again at invoke time by the registry: hiding a tool is not the boundary.
 */
export function createSession(options: SessionOptions): Session {
  const isReadOnly = options.readOnly === true || options.mode === "plan";
  const allowed = options.allowedTools ? new Set(options.allowedTools) : null;
  const isAllowed = (tool: Tool): boolean => {
    if (allowed && !allowed.has(tool.name)) return false;
    if (isReadOnly) return tool.kind === "read" || tool.kind === "exec";
    return true;
  };
  // Read-only sessions judge commands as `never` with no extra prefixes: only the read-only allowlist runs.
  const approvalGate = isReadOnly
    ? options.createApprovalGate({ approvalMode: "never", allowPrefixes: [] })
    : options.createApprovalGate({
        approvalMode: options.approvalMode,
        allowPrefixes: options.allowPrefixes,
      });
  const registry = createToolRegistry({
    tools: options.tools,
    approvalGate,
    safety: options.safety,
    isAllowed,
    readOnlyWorkspace: isReadOnly,
    ...(options.toolTimeoutMs === undefined ? {} : { defaultTimeoutMs: options.toolTimeoutMs }),
    ...(options.afterToolHooks ? { afterToolHooks: options.afterToolHooks } : {}),
    ...(options.maxOutputChars === undefined ? {} : { maxOutputChars: options.maxOutputChars }),
  });
  const budgets: LoopBudgets =
    options.mode === "plan"
      ? { ...options.budgets, maxTurns: Math.min(options.budgets.maxTurns, PLAN_MODE_MAX_TURNS) }
      : options.budgets;
  const systemPrompt = buildSystemPrompt({
    mode: options.mode,
    readOnly: isReadOnly,
    approvalMode: isReadOnly ? "never" : options.approvalMode,
    toolNames: registry.definitions().map((definition) => definition.function.name),
    maxTurns: budgets.maxTurns,
    allowPrefixes: isReadOnly ? [] : options.allowPrefixes,
    fencingInstructions: options.fencingInstructions,
    ...(options.skillIndex ? { skillIndex: options.skillIndex } : {}),
    ...(options.repositoryInstructions ? { repositoryInstructions: options.repositoryInstructions } : {}),
    ...(options.role ? { role: options.role } : {}),
  });
  return {
    workspaceRoot: options.workspaceRoot,
    mode: options.mode,
    approvalMode: options.approvalMode,
    isReadOnly,
    budgets,
    registry,
    systemPrompt,
  };
}
