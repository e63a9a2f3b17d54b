import { z } from "zod";
import { statusOf, type GitHubRequester } from "./github-requester.js";

export interface OpenOrUpdatePullRequestOptions {
  readonly owner: string;
  readonly repo: string;
  /** The work branch in the same repository, e.g. `agentforge/issue-12`. */
  readonly head: string;
  readonly base: string;
  readonly title: string;
  readonly body: string;
  readonly issueNumber: number;
  readonly draft?: boolean;
  /** The door's redaction gate; title and body pass through it. */
  readonly redact: (text: string) => string;
}

export interface PullRequestResult {
  readonly number: number;
  readonly url: string;
  readonly created: boolean;
}

const pullRequestSchema = z.object({ number: z.number().int(), html_url: z.string() }).loose();
const pullRequestListSchema = z.array(pullRequestSchema);

async function findOpen(
  octokit: GitHubRequester,
  options: OpenOrUpdatePullRequestOptions,
): Promise<z.output<typeof pullRequestSchema> | undefined> {
  const response = await octokit.request("GET /repos/{owner}/{repo}/pulls", {
    owner: options.owner,
    repo: options.repo,
    head: `${options.owner}:${options.head}`,
    state: "open",
    per_page: 10,
  });
  return pullRequestListSchema.parse(response.data)[0];
}

async function update(
  octokit: GitHubRequester,
  options: OpenOrUpdatePullRequestOptions,
  pullNumber: number,
): Promise<PullRequestResult> {
  const response = await octokit.request("PATCH /repos/{owner}/{repo}/pulls/{pull_number}", {
    owner: options.owner,
    repo: options.repo,
    pull_number: pullNumber,
    title: options.redact(options.title),
    body: options.redact(options.body),
  });
  const updated = pullRequestSchema.parse(response.data);
  return { number: updated.number, url: updated.html_url, created: false };
}

/**
 * One pull request per work branch: the open one for `head` is updated (a re-run moves the same
 * branch), otherwise one is opened. A 422 on create means one appeared meanwhile (a concurrent
 * run, or the list lagging behind the push); it is then found and updated.
 */
export async function openOrUpdatePullRequest(
  octokit: GitHubRequester,
  options: OpenOrUpdatePullRequestOptions,
): Promise<PullRequestResult> {
  const existing = await findOpen(octokit, options);
  if (existing !== undefined) return update(octokit, options, existing.number);
  try {
    const response = await octokit.request("POST /repos/{owner}/{repo}/pulls", {
      owner: options.owner,
      repo: options.repo,
      head: options.head,
      base: options.base,
      title: options.redact(options.title),
      body: options.redact(options.body),
      ...(options.draft === undefined ? {} : { draft: options.draft }),
    });
    const created = pullRequestSchema.parse(response.data);
    return { number: created.number, url: created.html_url, created: true };
  } catch (error) {
    if (statusOf(error) !== 422) throw error;
    const appeared = await findOpen(octokit, options);
    if (appeared === undefined) throw error;
    return update(octokit, options, appeared.number);
  }
}
