import type { ApprovalMode } from "./policy/approval-mode.js";
import type { ExitReason, LoopEventListener } from "./loop/loop-events.js";
import type { RunHandOver, RunPlacement, StoredRun } from "./run/run-hand-over.js";

/** A piece of outside text given to the run; it reaches the model fenced, with its source named. */
export interface UntrustedInput {
  readonly source: string;
  readonly text: string;
}

/** What a door hands the core to run once. */
export interface RunInput {
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
  /**
   * The model this run asks for, one the runner's `modelFor` gives (a person's choice, checked by
   * the door against the allowed list); the runner's own model when absent. A resume keeps it.
   */
  readonly model?: string;
}

export interface RunResult {
  readonly runId: string;
  readonly exitReason: ExitReason;
  readonly finalAnswer: string | null;
  readonly turns: number;
  readonly usage: {
    readonly promptTokens: number;
    readonly completionTokens: number;
    readonly totalTokens: number;
  };
  /** Null when a model call had no known price or usage: never shown as zero. */
  readonly costUsd: number | null;
  readonly tracePath: string | null;
  /** Workspace-relative paths written by tools. */
  readonly filesChanged: readonly string[];
  readonly commandsRun: readonly {
    readonly command: string;
    readonly exitCode: number | null;
    readonly ok: boolean;
  }[];
  /** Calls that write, execute or reach the network, and how many of them were refused. */
  readonly actions: ActionTally;
  /** The model the run asked for (a fallback may have answered some calls). */
  readonly model?: string;
  readonly errorMessage?: string;
}

export interface ActionTally {
  readonly attempted: number;
  /** Refused by the approval policy or the session's mode, or not run for want of a sandbox. */
  readonly refused: number;
}

/** True when the run tried at least one action and none of them happened. */
export function isEveryActionRefused(tally: ActionTally): boolean {
  return tally.attempted > 0 && tally.refused === tally.attempted;
}

export interface RunOptions {
  /**
   * The run's id, chosen by the caller so it can record it before anything happens (a door that
   * resumes after a crash needs it); a fresh one is made when absent.
   */
  readonly runId?: string;
  readonly onEvent?: LoopEventListener;
  /**
   * Settles when the door has finished with the workspace (host git still writing its index): the
   * session starts and the model is asked meanwhile, but no tool runs before it, so nothing the
   * run changes is read by host git early. A rejection ends the run as an error.
   */
  readonly workspaceReady?: Promise<void>;
}

export interface ResumeOptions {
  readonly onEvent?: LoopEventListener;
  readonly signal?: AbortSignal;
  /** A new limit on the run's model calls, counted from its start (after a max_turns stop). */
  readonly maxTurns?: number;
}

/**
 * The core's face for running the agent. A run is the core's own: its checkpoints, journal, trace
 * and redaction stay inside; a door gives a task, gets a result, and moves a run between machines
 * as an opaque hand-over value. The GitHub App, the Action and the CLI receive it as a dependency.
 */
export interface AgentRunner {
  run(task: RunInput, options?: RunOptions): Promise<RunResult>;
  /** Continues a stored run from its last checkpoint, without repeating a finished tool call. */
  resume(runId: string, options?: ResumeOptions): Promise<RunResult>;
  /** Where a stored run stands (none, unreadable, or its status and workspace). Changes nothing. */
  inspect(runId: string): Promise<StoredRun>;
  /** The run in flight as a value another machine can import; null before its first checkpoint or once it ended. */
  exportRun(runId: string): Promise<RunHandOver | null>;
  /** Makes a run exported elsewhere resumable here, in the workspace rebuilt for it. */
  importRun(handOver: RunHandOver, placement: RunPlacement): Promise<void>;
  /** The redaction every run applies: the exact secrets it was given and every credential pattern. */
  redact(text: string): string;
  /** A secret learnt while running (an installation token), redacted from then on. */
  addSecret(value: string): void;
}
