import { z } from "zod";
import type { DoorLogger } from "../github/github-logger.js";
import type { GitHubRequester } from "../github/pull-request/github-requester.js";
import { renderTaskCommentMarker } from "./task-comment-marker.js";

export interface TaskProgressCommentQuery {
  readonly owner: string;
  readonly repo: string;
  /** The issue or pull request the task answers. */
  readonly number: number;
  readonly taskId: string;
  /** The App's slug: only `slug[bot]` (a Bot) may have written the comment. */
  readonly appSlug: string;
  /** The task's comments are answers in a pull request review thread, not on the conversation. */
  readonly isThreadReply: boolean;
  /** When the task was queued (ms): its comments were posted after it. */
  readonly enqueuedAt: number;
}

const PAGE_SIZE = 100;
/** The task's comment is among the newest; a busier conversation is not read further. */
const MAX_PAGES = 3;
/** GitHub's clock and the queue's may differ; `since` looks back this much further. */
const CLOCK_SKEW_MS = 10 * 60_000;
const commentsSchema = z.array(
  z
    .object({
      id: z.number(),
      body: z.string().nullable().optional(),
      user: z.object({ login: z.string(), type: z.string() }).loose().nullable().optional(),
    })
    .loose(),
);
type ListedComment = z.output<typeof commentsSchema>[number];

/**
 * The id of the newest progress comment the App posted for a task, or null: for a later attempt
 * whose previous worker died before it recorded the id. Only a comment by the App's bot user that
 * carries the task's exact marker counts, so a person's copy of the marker is never edited. A
 * failed lookup is logged and answers null (the task then posts a new comment, as without it).
 */
export async function findTaskProgressComment(
  octokit: GitHubRequester,
  query: TaskProgressCommentQuery,
  logger: DoorLogger,
): Promise<number | null> {
  const marker = renderTaskCommentMarker(query.taskId);
  const botLogin = `${query.appSlug}[bot]`.toLowerCase();
  const isTasks = (comment: ListedComment): boolean =>
    comment.user?.type === "Bot" &&
    comment.user.login.toLowerCase() === botLogin &&
    (comment.body ?? "").includes(marker);
  try {
    return query.isThreadReply
      ? await findNewestReviewComment(octokit, query, isTasks)
      : await findNewestIssueComment(octokit, query, isTasks);
  } catch (error) {
    logger.warn(
      { err: error, taskId: query.taskId },
      "could not look for the task's progress comment; posting a new one",
    );
    return null;
  }
}

const sinceOf = (query: TaskProgressCommentQuery): string =>
  new Date(Math.max(0, query.enqueuedAt - CLOCK_SKEW_MS)).toISOString();

function readComments(data: unknown, route: string): ListedComment[] {
  const parsed = commentsSchema.safeParse(data);
  if (!parsed.success) throw new Error(`unexpected response of ${route}: ${parsed.error.message}`);
  return parsed.data;
}

/** Issue comments come oldest first and cannot be sorted: `since` keeps the list to the task's time. */
async function findNewestIssueComment(
  octokit: GitHubRequester,
  query: TaskProgressCommentQuery,
  isTasks: (comment: ListedComment) => boolean,
): Promise<number | null> {
  const route = "GET /repos/{owner}/{repo}/issues/{issue_number}/comments";
  let found: number | null = null;
  for (let page = 1; page <= MAX_PAGES; page += 1) {
    const response = await octokit.request(route, {
      owner: query.owner,
      repo: query.repo,
      issue_number: query.number,
      since: sinceOf(query),
      per_page: PAGE_SIZE,
      page,
    });
    const comments = readComments(response.data, route);
    for (const comment of comments) if (isTasks(comment)) found = comment.id;
    if (comments.length < PAGE_SIZE) break;
  }
  return found;
}

/** Review comments can be listed newest first: the first match is the newest. */
async function findNewestReviewComment(
  octokit: GitHubRequester,
  query: TaskProgressCommentQuery,
  isTasks: (comment: ListedComment) => boolean,
): Promise<number | null> {
  const route = "GET /repos/{owner}/{repo}/pulls/{pull_number}/comments";
  for (let page = 1; page <= MAX_PAGES; page += 1) {
    const response = await octokit.request(route, {
      owner: query.owner,
      repo: query.repo,
      pull_number: query.number,
      sort: "created",
      direction: "desc",
      since: sinceOf(query),
      per_page: PAGE_SIZE,
      page,
    });
    const comments = readComments(response.data, route);
    const found = comments.find(isTasks);
    if (found !== undefined) return found.id;
    if (comments.length < PAGE_SIZE) break;
  }
  return null;
}
