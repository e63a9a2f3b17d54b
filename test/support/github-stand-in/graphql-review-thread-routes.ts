import { HttpError, type RouteDependencies, type RouteRequest, type RouteResult } from "./stand-in-routes.js";
import type { StandInRepository, StandInReview } from "./stand-in-state.js";

/**
 * GitHub's GraphQL endpoint (`POST /graphql`; on Enterprise Server, which the stand-in's
 * `/api/v3` base stands for, `POST /api/graphql`), for the two operations reviews use, answered
 * from the stand-in's state as GitHub's GraphQL reference describes them:
 *
 * - the `repository.pullRequest.reviewThreads` connection (object `PullRequestReviewThread`:
 *   `id`, `isResolved`, `isOutdated`, `path`, `diffSide`, `originalLine`, `originalStartLine`,
 *   `resolvedBy`, `comments` of `PullRequestReviewComment` with `author { __typename login }`,
 *   `body`, `url`, `originalCommit { oid }`, `reactions`), one page;
 * - the `resolveReviewThread(input: { threadId })` mutation, which answers `{ thread { id
 *   isResolved } }`, or an `errors` entry of type NOT_FOUND for an unknown thread id.
 *
 * A thread is a review comment and the replies to it. Bots are named without `[bot]`, with
 * `__typename: "Bot"`, as GraphQL names them. Errors come back with HTTP 200 and `errors`, as
 * GitHub sends them. No other query is understood: anything else is a 400, so a test notices.
 */
export function handleGraphqlRoute(request: RouteRequest, deps: RouteDependencies): RouteResult {
  if (request.method !== "POST") throw new HttpError(404, "Not Found");
  const body = request.body as { query?: unknown; variables?: Record<string, unknown> } | null;
  const query = typeof body?.query === "string" ? body.query : "";
  const variables = body?.variables ?? {};
  if (/^\s*mutation\b/.test(query) && query.includes("resolveReviewThread"))
    return resolveThread(deps, typeof variables["threadId"] === "string" ? variables["threadId"] : "");
  if (/^\s*query\b/.test(query) && query.includes("reviewThreads")) return listThreads(deps, variables);
  throw new HttpError(
    400,
    "the stand-in's GraphQL endpoint understands reviewThreads and resolveReviewThread only",
  );
}

/** Resolution state per thread id (the stand-in's REST state has no such notion). */
const resolutions = new WeakMap<StandInRepository, Map<string, string>>();

function resolutionsOf(repository: StandInRepository): Map<string, string> {
  let map = resolutions.get(repository);
  if (map === undefined) resolutions.set(repository, (map = new Map()));
  return map;
}

export function threadIdOf(commentId: number): string {
  return `PRRT_${commentId}`;
}

/** Marks a thread resolved by `login`, as a person clicking "Resolve conversation" does. */
export function resolveThreadAs(repository: StandInRepository, commentId: number, login: string): void {
  resolutionsOf(repository).set(threadIdOf(commentId), login);
}

/** Who resolved the thread opened by `commentId`, or null while it is open. */
export function threadResolvedBy(repository: StandInRepository, commentId: number): string | null {
  return resolutionsOf(repository).get(threadIdOf(commentId)) ?? null;
}

function graphqlLogin(login: string): { __typename: string; login: string } {
  return login.endsWith("[bot]")
    ? { __typename: "Bot", login: login.slice(0, -"[bot]".length) }
    : { __typename: "User", login };
}

function listThreads(deps: RouteDependencies, variables: Record<string, unknown>): RouteResult {
  const repository = deps.repositories.get(
    `${String(variables["owner"])}/${String(variables["repo"])}`.toLowerCase(),
  );
  const number = Number(variables["number"]);
  if (repository === undefined || !repository.pulls.has(number))
    return notFound(`Could not resolve to a PullRequest with the number of ${number}.`);
  const base = `${deps.htmlBase()}/${repository.owner}/${repository.name}/pull/${number}`;
  const nodes = repository.reviews
    .filter((review) => review.pullNumber === number)
    .flatMap((review: StandInReview) =>
      review.comments.map((comment) => {
        const id = threadIdOf(comment.id);
        const resolvedBy = resolutionsOf(repository).get(id) ?? null;
        const replies = repository.threadReplies.filter((reply) => reply.inReplyTo === comment.id);
        const commit = review.commitId === null ? null : { oid: review.commitId };
        return {
          id,
          isResolved: resolvedBy !== null,
          isOutdated: false,
          path: comment.path,
          diffSide: comment.side,
          originalLine: comment.line,
          originalStartLine: null,
          resolvedBy: resolvedBy === null ? null : { login: graphqlLogin(resolvedBy).login },
          comments: {
            nodes: [
              {
                author: graphqlLogin(review.author),
                body: comment.body,
                url: `${base}#discussion_r${comment.id}`,
                originalCommit: commit,
                reactions: { nodes: [] },
              },
              ...replies.map((reply) => ({
                author: graphqlLogin(reply.author ?? `${deps.appSlug}[bot]`),
                body: reply.body,
                url: `${base}#discussion_r${reply.id}`,
                originalCommit: commit,
                reactions: { nodes: [] },
              })),
            ],
          },
        };
      }),
    );
  return {
    status: 200,
    data: {
      data: {
        repository: {
          pullRequest: { reviewThreads: { pageInfo: { hasNextPage: false, endCursor: null }, nodes } },
        },
      },
    },
  };
}

function resolveThread(deps: RouteDependencies, threadId: string): RouteResult {
  for (const repository of deps.repositories.values()) {
    const known = repository.reviews.some((review) =>
      review.comments.some((comment) => threadIdOf(comment.id) === threadId),
    );
    if (!known) continue;
    const map = resolutionsOf(repository);
    if (!map.has(threadId)) map.set(threadId, `${deps.appSlug}[bot]`);
    return {
      status: 200,
      data: { data: { resolveReviewThread: { thread: { id: threadId, isResolved: true } } } },
    };
  }
  return notFound(`Could not resolve to a node with the global id of '${threadId}'`);
}

function notFound(message: string): RouteResult {
  return { status: 200, data: { data: null, errors: [{ type: "NOT_FOUND", message }] } };
}
