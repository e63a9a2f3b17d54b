/** What the stand-in remembers; tests read it directly to check what the App did. */

export interface StandInUser {
  readonly login: string;
  readonly id: number;
  readonly type: "User" | "Bot";
}

export interface StandInComment {
  readonly id: number;
  readonly issueNumber: number;
  body: string;
  readonly user: StandInUser;
  /** Every body the comment had, oldest first (the progress comment is edited in place). */
  readonly history: string[];
}

export interface StandInIssue {
  readonly number: number;
  readonly title: string;
  readonly body: string;
  readonly user: StandInUser;
  /** Set when the number belongs to a pull request. */
  readonly isPullRequest: boolean;
}

export interface StandInPull {
  readonly number: number;
  title: string;
  body: string;
  readonly head: string;
  readonly base: string;
  readonly draft: boolean;
  state: "open" | "closed";
  readonly user: StandInUser;
}

export interface StandInReview {
  readonly id: number;
  readonly pullNumber: number;
  readonly body: string;
  readonly commitId: string | null;
  /** Who posted it: the App's bot, unless a test adds a person's review. */
  readonly author: string;
  readonly comments: readonly {
    readonly id: number;
    readonly path: string;
    readonly line: number;
    readonly side: string;
    readonly body: string;
  }[];
}

export interface StandInThreadReply {
  readonly id: number;
  readonly pullNumber: number;
  /** The review comment that opened the thread. */
  readonly inReplyTo: number;
  /** Who wrote it: the App's bot unless a test adds a person's reply. */
  readonly author?: string;
  body: string;
  readonly history: string[];
}

/** A check run of another app (CI) on a commit, as a test sets it up with `addCheckRun`. */
export interface StandInCheckRun {
  readonly id: number;
  readonly headSha: string;
  readonly name: string;
  readonly status: "queued" | "in_progress" | "completed";
  readonly conclusion: string | null;
  /** `github-actions` makes it a workflow job, whose log the logs endpoint serves. */
  readonly appSlug: string;
  readonly output: { readonly title?: string; readonly summary?: string; readonly text?: string };
  readonly annotations: readonly {
    readonly path: string;
    readonly startLine: number;
    readonly endLine?: number;
    readonly level?: "notice" | "warning" | "failure";
    readonly title?: string;
    readonly message: string;
  }[];
  /** The job's log; undefined answers 410 (logs gone). */
  readonly log?: string;
}

export interface StandInRepository {
  readonly owner: string;
  readonly name: string;
  readonly defaultBranch: string;
  readonly bareDir: string;
  readonly issues: Map<number, StandInIssue>;
  readonly comments: StandInComment[];
  readonly pulls: Map<number, StandInPull>;
  readonly reviews: StandInReview[];
  /** Replies in review-comment threads, with every text each one had. */
  readonly threadReplies: StandInThreadReply[];
  /** Check runs the App or the Action created (POST check-runs), as they sent them. */
  readonly checkRuns: Record<string, unknown>[];
  /** Check runs that GET commits/{ref}/check-runs lists: CI's, and the bot's own. */
  readonly ciCheckRuns: StandInCheckRun[];
  readonly reactions: { readonly target: string; readonly content: string }[];
  /** Label names per issue or pull request number, in the order they were added. */
  readonly labels: Map<number, string[]>;
  nextNumber: number;
}

export interface RecordedRequest {
  readonly method: string;
  /** Without the `/api/v3` prefix and the query. */
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly body: unknown;
  readonly status: number;
  readonly at: number;
}
