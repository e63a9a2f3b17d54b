import { isBotSender, type Sender } from "./authorize-commenter.js";
import { readConversationMode } from "./conversation-mode.js";

/** The pull request actions that ask for an automatic review, on both doors. */
export const PULL_REQUEST_REVIEW_ACTIONS = ["opened", "synchronize", "ready_for_review", "reopened"] as const;

/** A `pull_request` event as both doors read it once its payload is checked. */
export interface PullRequestEventForReview {
  readonly action: string;
  readonly pull_request: {
    readonly number: number;
    readonly state: string;
    readonly draft?: boolean | undefined;
    readonly head: { readonly sha: string };
    readonly labels?: readonly { readonly name: string }[] | null | undefined;
  };
  /** The head before a push (`synchronize`): where an incremental review starts. */
  readonly before?: string | undefined;
  readonly sender: Sender;
}

export type PullRequestReview =
  | {
      readonly kind: "review";
      readonly number: number;
      readonly headSha: string;
      readonly beforeSha: string | null;
      /** The door decides whether a draft waits (the App's `review.drafts`; the Action waits). */
      readonly draft: boolean;
      readonly requester: Sender;
    }
  | {
      readonly kind: "nothing";
      readonly cause: "not-a-review-action" | "bot" | "closed" | "paused";
      readonly reason: string;
    };

/**
 * Whether a pull request event asks for an automatic review, decided from the payload alone, the
 * same way on the App and the Action. A review only reads, so a fork's pull request may be
 * reviewed; the door adds its own rules (the App's repository config and budget).
 */
export function derivePullRequestReview(event: PullRequestEventForReview): PullRequestReview {
  const pull = event.pull_request;
  if (!(PULL_REQUEST_REVIEW_ACTIONS as readonly string[]).includes(event.action))
    return {
      kind: "nothing",
      cause: "not-a-review-action",
      reason: `pull request ${event.action}: nothing to review`,
    };
  // Includes a push by the bot to its own branch: reviewing its own push would loop.
  if (isBotSender(event.sender))
    return { kind: "nothing", cause: "bot", reason: `pushed by the bot ${event.sender.login}` };
  if (pull.state !== "open")
    return { kind: "nothing", cause: "closed", reason: "the pull request is not open" };
  // `pause` or `ignore` on this pull request: no automatic review until `resume`.
  if (readConversationMode(pull.labels) !== "active")
    return { kind: "nothing", cause: "paused", reason: "paused or ignored here (`resume` lifts it)" };
  return {
    kind: "review",
    number: pull.number,
    headSha: pull.head.sha,
    beforeSha: event.action === "synchronize" ? (event.before ?? null) : null,
    draft: pull.draft === true,
    requester: event.sender,
  };
}
