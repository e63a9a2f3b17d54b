/**
 * The one Octokit method these modules use. Probot's `context.octokit` and an `Octokit` from
 * @octokit/rest both fit; responses are validated where they are read, so the two type
 * packages' versions never need to agree.
 */
export interface GitHubRequester {
  request(
    route: string,
    parameters?: Record<string, unknown>,
  ): Promise<{ readonly status: number; readonly data: unknown }>;
}

/** An error from Octokit carries the HTTP status; read it without matching message text. */
export function statusOf(error: unknown): number | undefined {
  if (typeof error !== "object" || error === null || !("status" in error)) return undefined;
  const status = error.status;
  return typeof status === "number" ? status : undefined;
}
