import { z } from "zod";
import type { GitHubRequester } from "../pull-request/github-requester.js";
import { requestGraphql } from "./github-graphql.js";
import type { PullRequestRef } from "./read-own-review-history.js";

/** One comment of a review thread, as far as deciding about the thread needs it. */
export interface ReviewThreadComment {
  /** Null for a deleted account ("ghost"). */
  readonly author: string | null;
  /** `Bot` for an app's bot; GraphQL names a bot without the `[bot]` the REST API adds. */
  readonly authorType: string | null;
  readonly body: string;
  readonly url: string;
  /** The commit the comment was made on; its lines are numbered in that commit. */
  readonly originalCommit: string | null;
  /** Logins that reacted 👎 to the comment. */
  readonly thumbsDownBy: readonly string[];
}

/** A review thread of a pull request (GraphQL `PullRequestReviewThread`). */
export interface ReviewThread {
  readonly id: string;
  readonly isResolved: boolean;
  readonly resolvedBy: string | null;
  readonly isOutdated: boolean;
  readonly path: string;
  readonly side: "LEFT" | "RIGHT";
  /** Lines in the commit the thread started on (`originalStartLine`..`originalLine`). */
  readonly originalLine: number | null;
  readonly originalStartLine: number | null;
  /** Oldest first; the first one opened the thread. */
  readonly comments: readonly ReviewThreadComment[];
}

const PAGE_SIZE = 100;
/** A pull request with more than 2,000 threads is not worth reading to the end. */
const MAX_PAGES = 20;
const COMMENTS_PER_THREAD = 50;

/**
 * Fields as GitHub's GraphQL reference names them (objects `PullRequest.reviewThreads`,
 * `PullRequestReviewThread`, `PullRequestReviewComment`, `Reactable.reactions`).
 */
export const REVIEW_THREADS_QUERY = `query($owner: String!, $repo: String!, $number: Int!, $cursor: String) {
  repository(owner: $owner, name: $repo) {
    pullRequest(number: $number) {
      reviewThreads(first: ${PAGE_SIZE}, after: $cursor) {
        pageInfo { hasNextPage endCursor }
        nodes {
          id
          isResolved
          isOutdated
          path
          diffSide
          originalLine
          originalStartLine
          resolvedBy { login }
          comments(first: ${COMMENTS_PER_THREAD}) {
            nodes {
              author { __typename login }
              body
              url
              originalCommit { oid }
              reactions(content: THUMBS_DOWN, first: 20) { nodes { user { login } } }
            }
          }
        }
      }
    }
  }
}`;

const loginSchema = z.object({ login: z.string() }).loose();
const commentSchema = z
  .object({
    author: z.object({ __typename: z.string().optional(), login: z.string() }).loose().nullable(),
    body: z.string(),
    url: z.string(),
    originalCommit: z.object({ oid: z.string() }).loose().nullable().optional(),
    reactions: z
      .object({ nodes: z.array(z.object({ user: loginSchema.nullable() }).loose().nullable()) })
      .loose()
      .optional(),
  })
  .loose();
const threadSchema = z
  .object({
    id: z.string(),
    isResolved: z.boolean(),
    isOutdated: z.boolean(),
    path: z.string(),
    diffSide: z.enum(["LEFT", "RIGHT"]),
    originalLine: z.number().nullable(),
    originalStartLine: z.number().nullable(),
    resolvedBy: loginSchema.nullable(),
    comments: z.object({ nodes: z.array(commentSchema.nullable()) }).loose(),
  })
  .loose();
const pageSchema = z.object({
  repository: z.object({
    pullRequest: z.object({
      reviewThreads: z.object({
        pageInfo: z.object({ hasNextPage: z.boolean(), endCursor: z.string().nullable() }),
        nodes: z.array(threadSchema.nullable()),
      }),
    }),
  }),
});

function toThread(node: z.infer<typeof threadSchema>): ReviewThread {
  return {
    id: node.id,
    isResolved: node.isResolved,
    resolvedBy: node.resolvedBy?.login ?? null,
    isOutdated: node.isOutdated,
    path: node.path,
    side: node.diffSide,
    originalLine: node.originalLine,
    originalStartLine: node.originalStartLine,
    comments: node.comments.nodes.flatMap((comment) =>
      comment === null
        ? []
        : [
            {
              author: comment.author?.login ?? null,
              authorType: comment.author?.__typename ?? null,
              body: comment.body,
              url: comment.url,
              originalCommit: comment.originalCommit?.oid ?? null,
              thumbsDownBy: (comment.reactions?.nodes ?? []).flatMap((reaction) =>
                reaction?.user === null || reaction?.user === undefined ? [] : [reaction.user.login],
              ),
            },
          ],
    ),
  };
}

/** Every review thread of a pull request, through the GraphQL API (REST does not show resolution). */
export async function readReviewThreads(
  octokit: GitHubRequester,
  target: PullRequestRef,
): Promise<ReviewThread[]> {
  const threads: ReviewThread[] = [];
  let cursor: string | null = null;
  for (let page = 1; page <= MAX_PAGES; page += 1) {
    const data = await requestGraphql(octokit, REVIEW_THREADS_QUERY, {
      owner: target.owner,
      repo: target.repo,
      number: target.pull_number,
      cursor,
    });
    const parsed = pageSchema.safeParse(data);
    if (!parsed.success)
      throw new Error(`unexpected answer to the reviewThreads query: ${parsed.error.message}`);
    const connection = parsed.data.repository.pullRequest.reviewThreads;
    for (const node of connection.nodes) if (node !== null) threads.push(toThread(node));
    if (!connection.pageInfo.hasNextPage || connection.pageInfo.endCursor === null) break;
    cursor = connection.pageInfo.endCursor;
  }
  return threads;
}

export const RESOLVE_REVIEW_THREAD_MUTATION = `mutation($threadId: ID!) {
  resolveReviewThread(input: { threadId: $threadId }) { thread { id isResolved } }
}`;

/** Marks a thread resolved (GraphQL mutation `resolveReviewThread`); true when GitHub says it is. */
export async function resolveReviewThread(octokit: GitHubRequester, threadId: string): Promise<boolean> {
  const data = await requestGraphql(octokit, RESOLVE_REVIEW_THREAD_MUTATION, { threadId });
  const parsed = z
    .object({ resolveReviewThread: z.object({ thread: z.object({ isResolved: z.boolean() }).loose() }) })
    .safeParse(data);
  return parsed.success && parsed.data.resolveReviewThread.thread.isResolved;
}
