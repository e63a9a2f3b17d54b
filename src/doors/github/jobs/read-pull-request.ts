import { z } from "zod";
import type { GitHubRequester } from "../pull-request/github-requester.js";

const pullSchema = z
  .object({
    number: z.number().int(),
    draft: z.boolean().optional(),
    state: z.string(),
    base: z.object({ ref: z.string(), sha: z.string() }).loose(),
    head: z
      .object({
        ref: z.string(),
        sha: z.string(),
        repo: z.object({ full_name: z.string() }).loose().nullable(),
      })
      .loose(),
  })
  .loose();

export interface PullRequestFacts {
  readonly number: number;
  readonly baseRef: string;
  readonly baseSha: string;
  readonly headRef: string;
  readonly headSha: string;
  /**
   * The head lives in another repository (or one since deleted). Its code is only read: no
   * setup or test command runs on it and nothing is pushed to it.
   */
  readonly isFromFork: boolean;
  readonly isDraft: boolean;
}

export async function readPullRequest(
  octokit: GitHubRequester,
  target: {
    readonly owner: string;
    readonly repo: string;
    readonly number: number;
    readonly fullName: string;
  },
): Promise<PullRequestFacts> {
  const response = await octokit.request("GET /repos/{owner}/{repo}/pulls/{pull_number}", {
    owner: target.owner,
    repo: target.repo,
    pull_number: target.number,
  });
  const pull = pullSchema.parse(response.data);
  const headRepository = pull.head.repo?.full_name.toLowerCase() ?? null;
  return {
    number: pull.number,
    baseRef: pull.base.ref,
    baseSha: pull.base.sha,
    headRef: pull.head.ref,
    headSha: pull.head.sha,
    isFromFork: headRepository !== target.fullName.toLowerCase(),
    isDraft: pull.draft === true,
  };
}
