import { z } from "zod";
import { statusOf, type GitHubRequester } from "../pull-request/github-requester.js";
import type { BuiltReview, ReviewComment } from "./build-review.js";
import type { PullRequestRef } from "./read-own-review-history.js";

export interface PostReviewOptions extends PullRequestRef {
  /** The head commit the review is about; comments are anchored to its diff. */
  readonly commit_id: string;
  readonly review: Pick<BuiltReview, "body" | "comments">;
  /** The door's redaction gate; everything posted passes through it. */
  readonly redact: (text: string) => string;
  /** A cancelled task's review is never posted: checked before each attempt and passed to fetch. */
  readonly signal?: AbortSignal;
}

export interface PostedReview {
  readonly id: number;
  readonly url: string | null;
  /** How many inline comments went into the body because GitHub refused the first attempt. */
  readonly movedToBody: number;
  readonly attempts: number;
}

const MAX_BODY_CHARS = 65_000;
const reviewResponseSchema = z.object({ id: z.number(), html_url: z.string().nullable().optional() }).loose();

function indent(text: string): string {
  return text.replace(/\n/g, "\n  ");
}

/** Inline comments as body text, so none is lost when GitHub will not anchor them. */
export function moveCommentsToBody(body: string, comments: readonly ReviewComment[]): string {
  if (comments.length === 0) return body;
  const items = comments.map((comment) => {
    const range =
      comment.start_line === undefined ? `${comment.line}` : `${comment.start_line}-${comment.line}`;
    const side = comment.side === "LEFT" ? " (old side)" : "";
    return `- \`${comment.path.replace(/`/g, "'")}:${range}\`${side}\n  ${indent(comment.body)}`;
  });
  return `${body}\n\n#### Comments that could not be placed on their lines\n\n${items.join("\n")}`;
}

function truncate(text: string): string {
  return text.length <= MAX_BODY_CHARS ? text : `${text.slice(0, MAX_BODY_CHARS)}\n\n…(truncated)`;
}

/**
 * Posts a review with event COMMENT. GitHub refuses the whole request with 422 if any comment
 * does not fit the diff (a line it does not show, a stale commit), without saying which, so a
 * 422 is answered by posting again with every inline comment moved into the body, then by a
 * plain body without a commit: the review is never lost. Other errors are thrown.
 */
export async function postReview(
  octokit: GitHubRequester,
  options: PostReviewOptions,
): Promise<PostedReview> {
  const { owner, repo, pull_number, commit_id, review, redact } = options;
  const comments = review.comments.map((comment) => ({ ...comment, body: redact(comment.body) }));
  const attempts: Record<string, unknown>[] = [
    { commit_id, body: truncate(redact(review.body)), comments },
    { commit_id, body: truncate(redact(moveCommentsToBody(review.body, review.comments))), comments: [] },
    { body: truncate(redact(moveCommentsToBody(review.body, review.comments))), comments: [] },
  ];
  for (const [index, attempt] of attempts.entries()) {
    options.signal?.throwIfAborted();
    try {
      const response = await octokit.request("POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews", {
        owner,
        repo,
        pull_number,
        event: "COMMENT",
        ...attempt,
        ...(options.signal === undefined ? {} : { request: { signal: options.signal } }),
      });
      const parsed = reviewResponseSchema.parse(response.data);
      return {
        id: parsed.id,
        url: parsed.html_url ?? null,
        movedToBody: index === 0 ? 0 : review.comments.length,
        attempts: index + 1,
      };
    } catch (error) {
      const isLast = index === attempts.length - 1;
      if (statusOf(error) !== 422 || isLast) throw error;
    }
  }
  throw new Error("unreachable: every attempt either returns or throws");
}
