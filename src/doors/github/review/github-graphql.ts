import type { GitHubRequester } from "../pull-request/github-requester.js";

/** Octokit's `graphql`: posts to the right endpoint on github.com and on GitHub Enterprise Server. */
export type GraphqlFunction = (query: string, variables: Record<string, unknown>) => Promise<unknown>;

/** A requester that may also speak GraphQL: Probot's and @octokit/rest's Octokit both do. */
export type GraphqlCapableRequester = GitHubRequester & { readonly graphql?: GraphqlFunction };

/** A GraphQL answer that carried `errors` (GitHub answers them with HTTP 200). */
export class GitHubGraphqlError extends Error {
  override readonly name = "GitHubGraphqlError";
  readonly code = "GITHUB_GRAPHQL_FAILED";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

function hasGraphql(octokit: GitHubRequester): octokit is GitHubRequester & { graphql: GraphqlFunction } {
  return "graphql" in octokit && typeof (octokit as { graphql?: unknown }).graphql === "function";
}

/**
 * Runs one GraphQL document and returns its `data`. Octokit's own `graphql` is used when there is
 * one (it maps an Enterprise `/api/v3` base to `/api/graphql`); a plain requester posts to
 * `/graphql` under its base, which is GitHub.com's endpoint ("Forming calls with GraphQL").
 */
export async function requestGraphql(
  octokit: GitHubRequester,
  query: string,
  variables: Record<string, unknown>,
): Promise<unknown> {
  if (hasGraphql(octokit)) {
    try {
      return await octokit.graphql(query, variables);
    } catch (error) {
      throw new GitHubGraphqlError(
        `GitHub's GraphQL API refused the request: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
  }
  const response = await octokit.request("POST /graphql", { query, variables });
  const body = response.data as { data?: unknown; errors?: readonly { message?: unknown }[] } | null;
  if (body?.errors !== undefined && body.errors.length > 0) {
    const messages = body.errors
      .map((entry) => (typeof entry.message === "string" ? entry.message : "unknown error"))
      .join("; ");
    throw new GitHubGraphqlError(`GitHub's GraphQL API refused the request: ${messages}`);
  }
  return body?.data ?? null;
}
