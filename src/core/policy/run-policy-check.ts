import type { ApprovalMode } from "./approval-mode.js";
import type { CommandClassification, CommandPart, PolicyDecision } from "./command-classification.js";
import { evaluateCommand } from "./evaluate-command.js";

export interface PolicyCheckArguments {
  /** The words after `--`; several words are joined with spaces, as the shell would have received them. */
  readonly command: string | readonly string[];
  /** Defaults to `never`, the mode of bots and Actions. */
  readonly approvalMode?: ApprovalMode;
  readonly allowPrefixes?: readonly string[];
  /** The workspace the command may change; `agentforge policy check` has none and uses the current directory. */
  readonly workspaceRoot?: string;
}

export interface PolicyCheckOutput {
  readonly decision: PolicyDecision;
  readonly reason: string;
  readonly suggestion?: string;
  readonly classification: CommandClassification;
  readonly parts: readonly CommandPart[];
  readonly approval_mode: ApprovalMode;
}

export interface PolicyCheckResult {
  readonly json: PolicyCheckOutput;
  /** 0 approved, 1 rejected, 2 needs confirmation. */
  readonly exitCode: 0 | 1 | 2;
}

const EXIT_CODES: Readonly<Record<PolicyDecision, 0 | 1 | 2>> = {
  approved: 0,
  rejected: 1,
  needs_confirmation: 2,
};

/** What `agentforge policy check` prints and how it exits; the door only renders it. */
export async function runPolicyCheck(args: PolicyCheckArguments): Promise<PolicyCheckResult> {
  const command = typeof args.command === "string" ? args.command : args.command.join(" ");
  const approvalMode = args.approvalMode ?? "never";
  const decision = await evaluateCommand(command, {
    approvalMode,
    allowPrefixes: args.allowPrefixes ?? [],
    place: { workspaceRoot: args.workspaceRoot ?? process.cwd() },
  });
  return {
    json: {
      decision: decision.decision,
      reason: decision.reason,
      ...(decision.suggestion === undefined ? {} : { suggestion: decision.suggestion }),
      classification: decision.classification,
      parts: decision.parts,
      approval_mode: approvalMode,
    },
    exitCode: EXIT_CODES[decision.decision],
  };
}
