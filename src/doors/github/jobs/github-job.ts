import type { CarriedRun } from "./carried-run.js";
import type { ResumableAgentRunner } from "../../../core/create-agent-runner.js";
import type { ModelClient } from "../../../core/model/model-types.js";
import type { CommandRunner } from "../../../core/tools/tool.js";
import type { GitHubRequester } from "../pull-request/github-requester.js";
import type { RepositoryCache } from "../workspace/create-repository-cache.js";

/**
 * One piece of GitHub work, the same for the App (from a queued webhook) and the Action (from the
 * workflow event): fix an issue, plan, review a pull request, or act on a request on a PR.
 */
export interface GitHubJob {
  readonly kind: "fix" | "plan" | "review" | "request";
  readonly owner: string;
  readonly repo: string;
  /** The issue or pull request number. */
  readonly number: number;
  readonly isPullRequest: boolean;
  /** The login of the person who asked (authorized by the door). */
  readonly requester: string;
  /** Extra words after the command (`fix <instructions>`, the request text). */
  readonly instructions?: string;
  /** For pull request events: the head and, on synchronize, the head before the push. */
  readonly headSha?: string;
  readonly beforeSha?: string;
  /** A run id to resume (a task picked up again after its worker died). */
  readonly resumeRunId?: string;
  /** The request comment, when there is one (its text is the request; the job reads it). */
  readonly commentId?: number;
}

/**
 * What a job remembers about its workspace while it runs, so a process that dies mid-run can be
 * followed by one that resumes the same agent run in the same checkout. The door decides where
 * it lives (the App: `<dataDir>/tasks/<taskId>.json`); without a store nothing is resumed.
 */
export interface JobWorkspaceRecord {
  readonly workspaceRoot: string;
  /** The checkout's git directory, beside the work tree; a record without one is not resumed. */
  readonly gitDirectory?: string;
  /** What sandboxes over the work tree show read-only (Checkout.repository.sandboxReadOnlyPaths). */
  readonly readOnlyPaths?: readonly string[];
  /** The commit the workspace was made from (`Checkout.headSha`). */
  readonly baseSha: string;
  /** Where the work branch stood on the remote at checkout (`Checkout.remoteBranchSha`). */
  readonly remoteBranchSha: string | null;
  readonly branch: string | null;
  /** The agent run's trace; its header names the run id. */
  readonly tracePath: string;
  /** The run to continue, when it is known without the trace (a run carried from another worker). */
  readonly runId?: string;
}

export interface JobWorkspaceStore {
  load(): Promise<JobWorkspaceRecord | null>;
  save(record: JobWorkspaceRecord): Promise<void>;
  clear(): Promise<void>;
}

/** Where a job is told how it goes: one comment edited in place. */
export interface JobProgress {
  update(text: string): Promise<void>;
  finish(text: string): Promise<void>;
}

export interface GitHubJobDependencies {
  readonly octokit: GitHubRequester;
  /** A fresh installation (or workflow) token, given to git only for fetch and push. */
  readonly getToken: () => Promise<string>;
  readonly runner: ResumableAgentRunner;
  readonly cache: RepositoryCache;
  /** Runs setup commands (network on, no secrets) in the sandbox. */
  readonly commandRunner: CommandRunner;
  /** The commit author (the App's bot identity, or the Actions bot). */
  readonly author: { readonly name: string; readonly email: string };
  readonly progress: JobProgress;
  /** The last gate on every text that leaves for GitHub. */
  readonly redact: (text: string) => string;
  readonly signal: AbortSignal;
  /** Operator-level command prefixes added to the repository's allowlist. */
  readonly operatorAllowPrefixes: readonly string[];
  /** Where a person can see the run (an Actions run URL); optional. */
  readonly runUrl?: string;
  readonly now?: () => number;
  /** The model, for the reviewer subagents of a review; a review without it says so and stops. */
  readonly model?: ModelClient;
  /** Where the agent run's trace is written (the door keeps one per task). */
  readonly tracePath?: string;
  /** Lets a restarted worker resume the run in the workspace a dead one left (see JobWorkspaceRecord). */
  readonly workspaceStore?: JobWorkspaceStore;
  /** A run a worker on another machine started: its workspace is rebuilt here and the run continued. */
  readonly carriedRun?: CarriedRun;
  /** Timeout of each setup and test command. Default 10 minutes. */
  readonly commandTimeoutMs?: number;
  /** Where operational notes go (a check run that could not be created...). */
  readonly log?: (message: string, details?: Record<string, unknown>) => void;
}

export type GitHubJobStatus =
  | "pull-request-opened"
  | "pull-request-updated"
  | "plan-posted"
  | "review-posted"
  | "answered"
  | "no-change"
  | "failed";

export interface GitHubJobOutcome {
  readonly status: GitHubJobStatus;
  readonly summary: string;
  readonly url?: string;
  readonly pullRequestNumber?: number;
  readonly branch?: string;
  readonly tracePath?: string;
  readonly runId?: string;
  readonly totalTokens: number;
  readonly costUsd: number;
}
