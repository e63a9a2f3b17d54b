import type { ApprovalMode } from "./policy/approval-mode.js";
import type { ExitReason, LoopEventListener } from "./loop/loop-events.js";

/** A piece of outside text given to the run; it reaches the model fenced, with its source named. */
export interface UntrustedInput {
  readonly source: string;
  readonly text: string;
}

/** What a door hands the core to run once. */
export interface AgentTask {
  /** The person's request (trusted: it comes from an authorized person or the operator). */
  readonly prompt: string;
  readonly workspaceRoot: string;
  /**
   * The workspace's git metadata (its git directory, object stores it borrows, the `.git` entry),
   * shown to commands read-only; the workspace's own `.git` always is. Given by the door that made
   * the checkout, which knows where its git directory lives.
   */
  readonly readOnlyPaths?: readonly string[];
  readonly mode: "build" | "plan";
  readonly approvalMode: ApprovalMode;
  /** Command prefixes allowed beyond the read-only allowlist (operator and repository config). */
  readonly allowPrefixes: readonly string[];
  readonly maxTurns?: number;
  readonly untrustedInputs?: readonly UntrustedInput[];
  /** Repository instructions (AGENTS.md) read by the door from a trusted ref. */
  readonly repositoryInstructions?: string;
  readonly tracePath?: string;
  readonly signal?: AbortSignal;
}

export interface AgentRunResult {
  readonly runId: string;
  readonly exitReason: ExitReason;
  readonly finalAnswer: string | null;
  readonly turns: number;
  readonly usage: {
    readonly promptTokens: number;
    readonly completionTokens: number;
    readonly totalTokens: number;
  };
  readonly costUsd: number;
  readonly tracePath: string | null;
  /** Workspace-relative paths written by tools. */
  readonly filesChanged: readonly string[];
  readonly commandsRun: readonly {
    readonly command: string;
    readonly exitCode: number | null;
    readonly ok: boolean;
  }[];
  readonly errorMessage?: string;
}

/** The one entry the doors call. The GitHub App, the Action and the CLI receive it as a dependency. */
export type AgentRunner = (
  task: AgentTask,
  options?: { readonly onEvent?: LoopEventListener },
) => Promise<AgentRunResult>;
