import path from "node:path";
import type { ApprovalDecision, ApprovalGate, ApprovalRequest } from "../tools/approval-gate.js";
import type { ApprovalMode } from "./approval-mode.js";
import type { PolicyDecision } from "./command-classification.js";
import { decideApproval, shellAction, type PolicyAction } from "./decide-approval.js";
import { judgeCommandLine, type CommandJudgement } from "./evaluate-command.js";
import { loadBashParser } from "./load-bash-parser.js";
import { hasGitSegment, isPathInside } from "../paths/index.js";
import { resolveRealPath } from "./resolve-real-path.js";

/** What the policy would decide, handed to `confirm` when a person must say yes or no. */
export interface PendingApproval {
  readonly action: PolicyAction;
  readonly reason: string;
  readonly suggestion?: string;
  readonly command?: CommandJudgement;
}

export interface PolicyApprovalGateOptions {
  readonly approvalMode: ApprovalMode;
  readonly allowPrefixes: readonly string[];
  readonly workspaceRoot: string;
  /** Asks a person; without it, anything that needs confirmation is refused at once. */
  readonly confirm?: (request: ApprovalRequest, pending: PendingApproval) => Promise<boolean>;
}

interface JudgedAction {
  readonly action: PolicyAction;
  readonly reason: string;
  readonly suggestion?: string;
  readonly command?: CommandJudgement;
}

/** The approval gate of the tool registry, backed by the approval table and the shell policy. */
export function createPolicyApprovalGate(options: PolicyApprovalGateOptions): ApprovalGate {
  return {
    async decide(request: ApprovalRequest): Promise<ApprovalDecision> {
      const judged = await judgeRequest(request, options);
      const decision = decideApproval(options.approvalMode, judged.action);
      const details = {
        approval_mode: options.approvalMode,
        action: judged.action,
        decision,
        ...(judged.command === undefined
          ? {}
          : { classification: judged.command.classification, parts: judged.command.parts }),
      };
      const base = `${request.toolName}: ${judged.reason}`;
      switch (decision) {
        case "approved":
          return { allowed: true, reason: base, details };
        case "rejected":
          return refusal(`${base}; approval mode \`${options.approvalMode}\` refuses it`, judged, details);
        case "needs_confirmation":
          return confirmOrRefuse(request, judged, base, details, options);
      }
    },
  };
}

async function confirmOrRefuse(
  request: ApprovalRequest,
  judged: JudgedAction,
  base: string,
  details: Readonly<Record<string, unknown>>,
  options: PolicyApprovalGateOptions,
): Promise<ApprovalDecision> {
  if (options.confirm === undefined) {
    return refusal(
      `${base}; it needs confirmation and nobody can be asked in approval mode \`${options.approvalMode}\``,
      judged,
      details,
    );
  }
  let confirmed: boolean;
  try {
    confirmed = await options.confirm(request, judged);
  } catch (error: unknown) {
    const message = error instanceof Error ? error.message : String(error);
    return refusal(`${base}; asking for confirmation failed (${message}), so it is refused`, judged, {
      ...details,
      confirm_error: message,
    });
  }
  const decision: PolicyDecision = confirmed ? "approved" : "rejected";
  return confirmed
    ? { allowed: true, reason: `${base}; a person confirmed it`, details: { ...details, decision } }
    : refusal(`${base}; a person declined it`, judged, { ...details, decision });
}

function refusal(
  reason: string,
  judged: JudgedAction,
  details: Readonly<Record<string, unknown>>,
): ApprovalDecision {
  return {
    allowed: false,
    reason,
    ...(judged.suggestion === undefined ? {} : { suggestion: judged.suggestion }),
    details,
  };
}

async function judgeRequest(
  request: ApprovalRequest,
  options: PolicyApprovalGateOptions,
): Promise<JudgedAction> {
  if (request.isMcp === true) {
    return request.isReadOnlySource === true
      ? { action: "mcp_read_only", reason: "calls a tool of a read-only MCP server" }
      : {
          action: "mcp_mutating",
          reason: "calls a tool of an MCP server that may change things outside the sandbox",
          suggestion: "Use a read-only tool, or ask the operator to mark the server read-only if it is.",
        };
  }
  switch (request.kind) {
    case "read":
      return { action: "read", reason: "reads" };
    case "network":
      return {
        action: "network",
        reason: "uses the network",
        suggestion: "Work with what is in the workspace; the network is off in this phase.",
      };
    case "write":
      return judgeWrite(request.paths ?? [], options.workspaceRoot);
    case "exec": {
      if (request.command === undefined) {
        return {
          action: "shell_unparseable",
          reason: "runs a command it did not name",
          suggestion: "Name the command so that it can be checked.",
        };
      }
      // The sandbox mounts the workspace at the path it is given, so that path is what commands see.
      const workspaceRoot = path.resolve(options.workspaceRoot);
      const command = judgeCommandLine(await loadBashParser(), request.command, options.allowPrefixes, {
        workspaceRoot,
        ...(request.cwd === undefined ? {} : { cwd: path.resolve(workspaceRoot, request.cwd) }),
      });
      return {
        action: shellAction(command.classification),
        reason: command.summary,
        ...(command.suggestion === undefined ? {} : { suggestion: command.suggestion }),
        command,
      };
    }
  }
}

const OUTSIDE_SUGGESTION =
  "Write only inside the workspace, with paths relative to its root; `.git` is not writable.";

/** A write is inside the workspace only if every path's real location is, and none is in `.git`. */
async function judgeWrite(paths: readonly string[], workspaceRoot: string): Promise<JudgedAction> {
  if (paths.length === 0) {
    return {
      action: "write_outside_workspace",
      reason: "writes without saying which paths",
      suggestion: OUTSIDE_SUGGESTION,
    };
  }
  const root = await resolveRealPath(workspaceRoot, process.cwd());
  if (!root.success) {
    return { action: "write_outside_workspace", reason: root.error, suggestion: OUTSIDE_SUGGESTION };
  }
  for (const target of paths) {
    const real = await resolveRealPath(target, root.value);
    if (!real.success) {
      return { action: "write_outside_workspace", reason: real.error, suggestion: OUTSIDE_SUGGESTION };
    }
    if (!isPathInside(root.value, real.value)) {
      return {
        action: "write_outside_workspace",
        reason: `writes to \`${target}\`, which is outside the workspace (it resolves to \`${real.value}\`)`,
        suggestion: OUTSIDE_SUGGESTION,
      };
    }
    // Hooks and config in `.git` would be run or obeyed by git later, outside any approval.
    if (hasGitSegment(path.relative(root.value, real.value))) {
      return {
        action: "write_outside_workspace",
        reason: `writes to \`${target}\`, inside \`.git\``,
        suggestion: OUTSIDE_SUGGESTION,
      };
    }
  }
  return { action: "write_inside_workspace", reason: `writes inside the workspace (${paths.join(", ")})` };
}
