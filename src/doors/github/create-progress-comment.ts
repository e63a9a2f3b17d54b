import type { DoorLogger } from "./github-logger.js";
import type { GitHubRequester } from "./pull-request/github-requester.js";

export interface ProgressComment {
  /** Posts the comment (or edits it if it exists). */
  start(text: string): Promise<void>;
  /** Edits the comment; edits closer than the interval are merged and the latest text wins. */
  update(text: string): Promise<void>;
  /** Posts the final text at once, after any edit in flight; never dropped by the throttle. */
  finish(text: string): Promise<void>;
  /** Resolves once no throttled update is waiting and every write has been sent. */
  idle(): Promise<void>;
  readonly commentId: number | null;
}

export interface ProgressCommentOptions {
  readonly owner: string;
  readonly repo: string;
  readonly issueNumber: number;
  /**
   * A review comment to answer in its thread: the comment is posted as a reply there (and edited
   * as a pull request review comment) instead of on the conversation tab.
   */
  readonly replyTo?: { readonly commentId: number };
  /** Everything posted passes through here first (secrets must never reach GitHub). */
  readonly redact?: (text: string) => string;
  /**
   * A hidden line (an HTML comment) ending every body, added after redaction so no redaction rule
   * can mangle it; it must therefore hold nothing secret (the App's names the task).
   */
  readonly marker?: string;
  readonly minIntervalMs?: number;
  readonly logger?: DoorLogger;
}

/**
 * One comment edited in place as a run goes. GitHub limits content-creating requests, so
 * intermediate updates are throttled to one edit per interval; the final text always lands.
 */
export function createProgressComment(
  octokit: GitHubRequester,
  options: ProgressCommentOptions,
): ProgressComment {
  const redact = options.redact ?? ((text: string) => text);
  const minIntervalMs = options.minIntervalMs ?? 2000;
  let commentId: number | null = null;
  let lastWriteAt = Number.NEGATIVE_INFINITY;
  let pendingText: string | null = null;
  let timer: NodeJS.Timeout | null = null;
  /** Settles when the throttled update fires or is dropped. */
  let scheduled: Promise<void> | null = null;
  let settleScheduled: () => void = () => undefined;
  let isFinished = false;
  // Every request runs in order, so an older text can never overwrite a newer one.
  let chain: Promise<void> = Promise.resolve();

  async function write(text: string): Promise<void> {
    const redacted = redact(text);
    const marker = options.marker;
    const body = marker === undefined || redacted.includes(marker) ? redacted : `${redacted}\n\n${marker}`;
    // Spacing is measured from the end of the previous write, so a slow request still leaves a gap.
    try {
      await send(body);
    } finally {
      lastWriteAt = Date.now();
    }
  }

  async function send(body: string): Promise<void> {
    const where = { owner: options.owner, repo: options.repo };
    if (commentId === null) {
      const response =
        options.replyTo === undefined
          ? await octokit.request("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", {
              ...where,
              issue_number: options.issueNumber,
              body,
            })
          : await octokit.request(
              "POST /repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies",
              {
                ...where,
                pull_number: options.issueNumber,
                comment_id: options.replyTo.commentId,
                body,
              },
            );
      const id = (response.data as { readonly id?: unknown } | null)?.id;
      commentId = typeof id === "number" ? id : null;
      return;
    }
    const route =
      options.replyTo === undefined
        ? "PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}"
        : "PATCH /repos/{owner}/{repo}/pulls/comments/{comment_id}";
    await octokit.request(route, { ...where, comment_id: commentId, body });
  }

  function enqueueWrite(text: string): Promise<void> {
    const next = chain.then(() => write(text));
    chain = next.catch((error: unknown) => {
      options.logger?.warn(
        { err: error, issueNumber: options.issueNumber },
        "progress comment update failed",
      );
    });
    return next;
  }

  function flushPending(): Promise<void> {
    timer = null;
    settleScheduled();
    if (pendingText === null || isFinished) return Promise.resolve();
    const text = pendingText;
    pendingText = null;
    void enqueueWrite(text);
    // Intermediate updates are best effort: a failure is logged by the chain and not thrown.
    return chain;
  }

  return {
    get commentId() {
      return commentId;
    },
    start(text) {
      return enqueueWrite(text);
    },
    update(text) {
      if (isFinished) return Promise.resolve();
      pendingText = text;
      const waitMs = lastWriteAt + minIntervalMs - Date.now();
      if (waitMs <= 0 && timer === null) return flushPending();
      if (timer === null) {
        scheduled = new Promise((resolve) => {
          settleScheduled = () => {
            scheduled = null;
            resolve();
          };
        });
        timer = setTimeout(() => void flushPending(), Math.max(0, waitMs));
        timer.unref();
      }
      return Promise.resolve();
    },
    finish(text) {
      isFinished = true;
      pendingText = null;
      if (timer !== null) clearTimeout(timer);
      timer = null;
      settleScheduled();
      return enqueueWrite(text);
    },
    async idle() {
      while (scheduled !== null) await scheduled;
      await chain;
    },
  };
}
