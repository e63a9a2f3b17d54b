import { statusOf, type GitHubRequester } from "../pull-request/github-requester.js";

export interface CheckRunOptions {
  readonly owner: string;
  readonly repo: string;
  readonly headSha: string;
  readonly conclusion: "success" | "failure" | "neutral";
  readonly title: string;
  readonly summary: string;
  readonly detailsUrl?: string;
  readonly redact: (text: string) => string;
  readonly log?: (message: string, details?: Record<string, unknown>) => void;
}

/** GitHub's limit on a check run's output summary. */
const MAX_SUMMARY_CHARS = 65_000;

/**
 * A completed "AgentForge" check run on the head commit with the trace summary. Best effort: an
 * installation without `checks: write` answers 403 (and a token of a fork's workflow 403 too); the
 * run itself succeeded, so that is logged and the job goes on. Returns whether it was created.
 */
/** The name of the check run every job leaves on its commit. */
export const CHECK_RUN_NAME = "AgentForge";

export async function createCheckRun(octokit: GitHubRequester, options: CheckRunOptions): Promise<boolean> {
  const summary = options.redact(options.summary);
  try {
    await octokit.request("POST /repos/{owner}/{repo}/check-runs", {
      owner: options.owner,
      repo: options.repo,
      name: CHECK_RUN_NAME,
      head_sha: options.headSha,
      status: "completed",
      conclusion: options.conclusion,
      completed_at: new Date().toISOString(),
      ...(options.detailsUrl === undefined ? {} : { details_url: options.detailsUrl }),
      output: {
        title: options.redact(options.title).slice(0, 255),
        summary: summary.length > MAX_SUMMARY_CHARS ? `${summary.slice(0, MAX_SUMMARY_CHARS)}…` : summary,
      },
    });
    return true;
  } catch (error) {
    const status = statusOf(error);
    if (status !== 403 && status !== 404 && status !== 422) throw error;
    options.log?.("check run not created", { status });
    return false;
  }
}
