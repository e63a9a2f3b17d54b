import type { JobProgress } from "../github/jobs/github-job.js";
import type { GitHubRequester } from "../github/pull-request/github-requester.js";

export interface ActionProgress extends JobProgress {
  readonly commentId: number | null;
}

export interface ActionProgressOptions {
  readonly owner: string;
  readonly repo: string;
  readonly issueNumber: number;
  /** Every text passes through here before it is posted. */
  readonly redact: (text: string) => string;
  readonly minIntervalMs?: number;
  readonly warn?: (message: string) => void;
}

/**
 * One comment edited in place as the job goes. Intermediate edits are throttled (GitHub limits
 * content-creating requests) and best effort; the final text always lands, after any edit in flight.
 * The App has its own with Probot's types and logger; this one needs only `request`.
 */
export function createActionProgress(
  octokit: GitHubRequester,
  options: ActionProgressOptions,
): ActionProgress {
  const minIntervalMs = options.minIntervalMs ?? 2000;
  let commentId: number | null = null;
  let lastWriteAt = Number.NEGATIVE_INFINITY;
  let pendingText: string | null = null;
  let timer: NodeJS.Timeout | null = null;
  let isFinished = false;
  // Requests run one after another, so an older text never overwrites a newer one.
  let chain: Promise<void> = Promise.resolve();

  async function send(text: string): Promise<void> {
    const body = options.redact(text);
    try {
      if (commentId === null) {
        const response = await octokit.request("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", {
          owner: options.owner,
          repo: options.repo,
          issue_number: options.issueNumber,
          body,
        });
        const id = (response.data as { id?: unknown }).id;
        commentId = typeof id === "number" ? id : null;
        return;
      }
      await octokit.request("PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}", {
        owner: options.owner,
        repo: options.repo,
        comment_id: commentId,
        body,
      });
    } finally {
      lastWriteAt = Date.now();
    }
  }

  function enqueue(text: string): Promise<void> {
    const next = chain.then(() => send(text));
    chain = next.catch((error: unknown) => {
      options.warn?.(
        `progress comment not updated: ${error instanceof Error ? error.message : String(error)}`,
      );
    });
    return next;
  }

  function flush(): Promise<void> {
    timer = null;
    if (pendingText === null || isFinished) return Promise.resolve();
    const text = pendingText;
    pendingText = null;
    void enqueue(text);
    return chain;
  }

  return {
    get commentId() {
      return commentId;
    },
    update(text) {
      if (isFinished) return Promise.resolve();
      pendingText = text;
      const waitMs = lastWriteAt + minIntervalMs - Date.now();
      if (waitMs <= 0 && timer === null) return flush();
      if (timer === null) {
        timer = setTimeout(() => void flush(), Math.max(0, waitMs));
        timer.unref();
      }
      return Promise.resolve();
    },
    finish(text) {
      isFinished = true;
      pendingText = null;
      if (timer !== null) clearTimeout(timer);
      timer = null;
      return enqueue(text);
    },
  };
}
