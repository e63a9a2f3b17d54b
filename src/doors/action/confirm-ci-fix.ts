import { decideCiFix, type CiFixDecision } from "../github/commands/decide-ci-fix.js";
import { readJobConfig, readJobRepository } from "../github/jobs/read-job-repository.js";
import type { GitHubJob } from "../github/jobs/github-job.js";
import type { GitHubRequester } from "../github/pull-request/github-requester.js";

/**
 * The Action's gate on an automatic "fix ci", before any comment: the same decision the App's
 * intake makes (`decideCiFix`), with the repository config read from the default branch. A red
 * run on someone else's pull request, a stale commit or a paused conversation is skipped here
 * without a word on GitHub; at the limit the one stop comment is posted by the caller.
 */
export async function confirmCiFix(
  octokit: GitHubRequester,
  job: GitHubJob,
  identity: { readonly ownLogin: string; readonly mention: string },
): Promise<CiFixDecision> {
  if (job.headSha === undefined) return { kind: "nothing", reason: "the red run names no commit" };
  const repository = await readJobRepository(octokit, job);
  const config = await readJobConfig(octokit, { ...job, defaultBranch: repository.defaultBranch });
  if (!config.success)
    return { kind: "nothing", reason: `the repository config is not valid: ${config.error.split("\n")[0]}` };
  return decideCiFix(
    octokit,
    { owner: job.owner, repo: job.repo, number: job.number, headSha: job.headSha },
    {
      ownLogins: [identity.ownLogin],
      ownAppSlug: identity.mention.replace(/^@/, ""),
      branchPrefix: config.value.branch_prefix,
      maxAttempts: config.value.ci.max_fix_attempts,
      mention: identity.mention,
    },
  );
}
