import type { ApprovalMode } from "./approval-mode.js";
import type { CommandClassification, PolicyDecision } from "./command-classification.js";

export const POLICY_ACTIONS = [
  "read",
  "write_inside_workspace",
  "write_outside_workspace",
  "shell_safe",
  "shell_allowlisted",
  "shell_not_allowlisted",
  "shell_dangerous",
  "shell_unparseable",
  "mcp_read_only",
  "mcp_mutating",
  "network",
] as const;
export type PolicyAction = (typeof POLICY_ACTIONS)[number];

const A = "approved";
const R = "rejected";
const C = "needs_confirmation";

/**
 * The whole approval policy, one decision per mode and action:
 *
 * | action                   | never | on-request | auto-edit | auto    | yolo  |
 * |--------------------------|-------|------------|-----------|---------|-------|
 * | read                     | A     | A          | A         | A       | A     |
 * | write inside workspace   | A     | C          | A         | A       | A     |
 * | write outside workspace  | R     | R          | R         | R       | A     |
 * | shell safe (read-only)   | A     | A          | A         | A       | A     |
 * | shell allowlisted        | A     | A          | A         | A       | A     |
 * | shell not allowlisted    | R     | C          | C         | A       | A     |
 * | shell dangerous          | R     | R          | R         | R       | A     |
 * | shell unparseable        | R     | C          | C         | C       | A     |
 * | MCP read-only source     | A     | A          | A         | A       | A     |
 * | MCP mutating             | R     | C          | C         | C       | A     |
 * | network                  | R     | C          | C         | C       | A     |
 *
 * A approved, R rejected, C needs confirmation.
 *
 * Why: `never` is for bots and Actions, where nobody can be asked, so it decides everything
 * at once. `on-request` asks before any change. `auto-edit` also takes edits inside the
 * workspace (they are visible in the diff). `auto` also runs commands it cannot prove
 * read-only, because they run in the sandbox with no network and only the checkout writable;
 * it still asks for what the sandbox does not contain (network, MCP servers, which run outside
 * it) and for commands it could not read. Dangerous commands and writes outside the workspace
 * are refused in every mode but `yolo`, which approves everything and relies on the sandbox.
 */
export const APPROVAL_TABLE: Readonly<Record<ApprovalMode, Readonly<Record<PolicyAction, PolicyDecision>>>> =
  {
    never: {
      read: A,
      write_inside_workspace: A,
      write_outside_workspace: R,
      shell_safe: A,
      shell_allowlisted: A,
      shell_not_allowlisted: R,
      shell_dangerous: R,
      shell_unparseable: R,
      mcp_read_only: A,
      mcp_mutating: R,
      network: R,
    },
    "on-request": {
      read: A,
      write_inside_workspace: C,
      write_outside_workspace: R,
      shell_safe: A,
      shell_allowlisted: A,
      shell_not_allowlisted: C,
      shell_dangerous: R,
      shell_unparseable: C,
      mcp_read_only: A,
      mcp_mutating: C,
      network: C,
    },
    "auto-edit": {
      read: A,
      write_inside_workspace: A,
      write_outside_workspace: R,
      shell_safe: A,
      shell_allowlisted: A,
      shell_not_allowlisted: C,
      shell_dangerous: R,
      shell_unparseable: C,
      mcp_read_only: A,
      mcp_mutating: C,
      network: C,
    },
    auto: {
      read: A,
      write_inside_workspace: A,
      write_outside_workspace: R,
      shell_safe: A,
      shell_allowlisted: A,
      shell_not_allowlisted: A,
      shell_dangerous: R,
      shell_unparseable: C,
      mcp_read_only: A,
      mcp_mutating: C,
      network: C,
    },
    yolo: {
      read: A,
      write_inside_workspace: A,
      write_outside_workspace: A,
      shell_safe: A,
      shell_allowlisted: A,
      shell_not_allowlisted: A,
      shell_dangerous: A,
      shell_unparseable: A,
      mcp_read_only: A,
      mcp_mutating: A,
      network: A,
    },
  };

export function decideApproval(mode: ApprovalMode, action: PolicyAction): PolicyDecision {
  return APPROVAL_TABLE[mode][action];
}

export function shellAction(classification: CommandClassification): PolicyAction {
  return `shell_${classification}`;
}
