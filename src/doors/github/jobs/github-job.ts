import type { AgentRunner } from "../../../core/agent-run.js";
import type { HandOver } from "./hand-over.js";
import type { ModelClient } from "../../../core/model/index.js";
import type { CommandRunner } from "../../../core/tools/index.js";
import type { GitHubRequester } from "../pull-request/github-requester.js";
import type { RepositoryCache } from "../workspace/create-repository-cache.js";

/**
 * One piece of GitHub work, the same for the App (from a queued webhook) and the Action (from the
 * workflow event): fix an issue, plan, review a pull request, or act on a request on a PR.
 */
export interface GitHubJob {
  readonly kind: "fix" | "plan" | "review" | "request" | "fix-ci";
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
  /** The request comment, when there is one (its text is the request; the job reads it). */
  readonly commentId?: number;
  /** `review full`: read the whole pull request, not only the commits since the last review. */
  readonly fullReview?: boolean;
  /**
   * The review-comment thread the command was written in: the answer goes there (the door's
   * progress comment), and the model is told the file and line it is about.
   */
  readonly thread?: { readonly path: string; readonly line: number | null };
  /**
   * For `fix-ci`: started by the bot itself after a red suite on its own pull request, not by a
   * person. Such an attempt is counted against `ci.max_fix_attempts`, and checked again when it starts.
   */
  readonly automatic?: boolean;
  /** The model the person chose (`… with <model>`); checked against `JobAgent.allowedModels` before any work. */
  readonly model?: string;
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
  /** The agent run's trace. */
  readonly tracePath: string;
  /** The job's agent run; a record without one (an older version's) is not resumed. */
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

/** Talking to GitHub: the API, tokens for git, who commits, how people address the bot. */
export interface JobGitHub {
  readonly octokit: GitHubRequester;
  /** A fresh installation (or workflow) token, given to git only for fetch and push. */
  readonly getToken: () => Promise<string>;
  /** The commit author (the App's bot identity, or the Actions bot). */
  readonly author: { readonly name: string; readonly email: string };
  /**
   * The login its token acts as (the author of its pull requests and comments), when that is not
   * `author.name`: the Action with a GitHub App token. Attempts and own pull requests are read by it.
   */
  readonly ownLogin?: string;
  /** How a person addresses it in a comment, e.g. `@agentforge`; every message that suggests a command uses it. */
  readonly mention: string;
}

/** Where the work happens: checkouts, the sandbox's commands, and what survives a crash. */
export interface JobWorkspaceDependencies {
  readonly cache: RepositoryCache;
  /** Runs setup and test commands in the sandbox (scoped per checkout by the job). */
  readonly commandRunner: CommandRunner;
  /** Timeout of each setup and test command. Default 10 minutes. */
  readonly commandTimeoutMs?: number;
  /** Lets a restarted worker resume the run in the workspace a dead one left (see JobWorkspaceRecord). */
  readonly store?: JobWorkspaceStore;
  /** A run a worker on another machine started: its workspace is rebuilt here and the run continued. */
  readonly handOver?: HandOver;
}

/** The agent: the core's runner and what a job adds to its runs. */
export interface JobAgent {
  readonly runner: AgentRunner;
  /** The model, for the reviewer subagents of a review; a review without it says so and stops. */
  readonly model?: ModelClient;
  /** The models a job may choose (the operator's list); without it only `model` may be chosen. */
  readonly allowedModels?: readonly string[];
  /** The client of a chosen, allowed model, for a review's panel (the runner makes its own for runs). */
  readonly modelFor?: (name: string) => ModelClient;
  /**
   * Command prefixes this door adds to the repository's allowlist (the Action's `allowed-commands`
   * input). The operator config's own are added by the runner to every run.
   */
  readonly extraAllowPrefixes?: readonly string[];
  /** Where the agent run's trace is written (the door keeps one per task). */
  readonly tracePath?: string;
}

/** What the person sees, and what the operator reads. */
export interface JobReport {
  readonly progress: JobProgress;
  /** The last gate on every text that leaves for GitHub. */
  readonly redact: (text: string) => string;
  /** Where a person can see the run (an Actions run URL); optional. */
  readonly runUrl?: string;
  readonly now?: () => number;
  /** Where operational notes go (a check run that could not be created...). */
  readonly log?: (message: string, details?: Record<string, unknown>) => void;
}

/** Everything a job needs from its door, in four groups; each stage takes only the parts it uses. */
export interface JobDependencies {
  readonly github: JobGitHub;
  readonly workspace: JobWorkspaceDependencies;
  readonly agent: JobAgent;
  readonly report: JobReport;
  /** Aborted when the request is stopped or the task's lease is lost. */
  readonly signal: AbortSignal;
}

export type JobStatus =
  | "pull-request-opened"
  | "pull-request-updated"
  | "plan-posted"
  | "review-posted"
  | "answered"
  | "no-change"
  | "failed";

export interface JobOutcome {
  readonly status: JobStatus;
  readonly summary: string;
  readonly url?: string;
  readonly pullRequestNumber?: number;
  readonly branch?: string;
  readonly tracePath?: string;
  readonly runId?: string;
  readonly totalTokens: number;
  /** Null when the model had no known price. */
  readonly costUsd: number | null;
}
