import { z } from "zod";
import type { GitHubRequester } from "../pull-request/github-requester.js";
import { listFailingChecks } from "../jobs/read-failing-checks.js";
import { renderCiFixMarker } from "./ci-fix-marker.js";
import { readConversationMode } from "./conversation-mode.js";
import { readCiFixHistory } from "./read-ci-fix-history.js";

export type CiFixDecision =
  | { readonly kind: "run"; readonly headSha: string; readonly headBranch: string; readonly attempt: number }
  /** The automatic attempts are spent: post `comment` once, start nothing. */
  | { readonly kind: "stop"; readonly comment: string; readonly failingChecks: readonly string[] }
  | { readonly kind: "nothing"; readonly reason: string };

export interface CiFixTarget {
  readonly owner: string;
  readonly repo: string;
  readonly number: number;
  /** The commit whose checks went red. */
  readonly headSha: string;
}

export interface CiFixOptions {
  /** The logins that are this bot (`agentforge[bot]`; the Action: `github-actions[bot]`). */
  readonly ownLogins: readonly string[];
  /** This app's slug: its own check run is never counted as failing CI. */
  readonly ownAppSlug: string;
  /** The repository's `branch_prefix`: the bot's branches are `<prefix>issue-N`. */
  readonly branchPrefix: string;
  /** The repository's `ci.max_fix_attempts`. */
  readonly maxAttempts: number;
  /** How people address the bot, for the stop comment (`@agentforge`). */
  readonly mention: string;
}

const pullSchema = z.looseObject({
  state: z.string(),
  user: z.looseObject({ login: z.string() }).nullable(),
  labels: z.array(z.looseObject({ name: z.string().optional() })).optional(),
  head: z.looseObject({
    ref: z.string(),
    sha: z.string(),
    repo: z.looseObject({ full_name: z.string() }).nullable(),
  }),
});

/**
 * Whether a red suite on a pull request starts an automatic "fix ci": only on the bot's own pull
 * request (opened by the bot, from one of its branches in this repository), only for the commit
 * that is still its head, only while the conversation is active, and at most `maxAttempts` times
 * per pull request (counted from the bot's own comments). At the limit it says so once. The App's
 * intake and the Action both ask this before any work, and an automatic job asks it again when it
 * starts (a second red suite may have been queued meanwhile).
 */
export async function decideCiFix(
  octokit: GitHubRequester,
  target: CiFixTarget,
  options: CiFixOptions,
): Promise<CiFixDecision> {
  const { owner, repo, number } = target;
  const pull = pullSchema.parse(
    (
      await octokit.request("GET /repos/{owner}/{repo}/pulls/{pull_number}", {
        owner,
        repo,
        pull_number: number,
      })
    ).data,
  );
  const own = new Set(options.ownLogins.map((login) => login.toLowerCase()));
  if (pull.state !== "open") return nothing("the pull request is not open");
  if (pull.user === null || !own.has(pull.user.login.toLowerCase()))
    return nothing(
      `pull request #${number} was opened by ${pull.user?.login ?? "a deleted account"}, not by this bot`,
    );
  if (pull.head.repo?.full_name.toLowerCase() !== `${owner}/${repo}`.toLowerCase())
    return nothing("the pull request's branch is in another repository");
  if (!pull.head.ref.startsWith(options.branchPrefix))
    return nothing(`the branch ${pull.head.ref} is not one of the bot's (${options.branchPrefix}…)`);
  if (pull.head.sha !== target.headSha)
    return nothing(
      `the red checks are for ${target.headSha.slice(0, 7)}, but the branch is now at ${pull.head.sha.slice(0, 7)}`,
    );
  const mode = readConversationMode(pull.labels);
  if (mode !== "active") return nothing(`the conversation is ${mode}: nothing automatic runs here`);
  if (options.maxAttempts === 0) return nothing("automatic CI fixes are off here (`ci.max_fix_attempts: 0`)");
  const history = await readCiFixHistory(octokit, { owner, repo, number }, options.ownLogins);
  if (history.attemptedHeads.has(target.headSha))
    return nothing(`an automatic attempt already started from ${target.headSha.slice(0, 7)}`);
  if (history.automaticAttempts < options.maxAttempts)
    return {
      kind: "run",
      headSha: pull.head.sha,
      headBranch: pull.head.ref,
      attempt: history.automaticAttempts + 1,
    };
  if (history.hasStopped) return nothing("the automatic attempts are spent and that was said already");
  const failing = await listFailingChecks(octokit, { owner, repo, ref: target.headSha }, options.ownAppSlug);
  const names = [...new Set(failing.map((check) => check.name))];
  return {
    kind: "stop",
    failingChecks: names,
    comment: renderStopComment(names, options, target.headSha, history.automaticAttempts),
  };
}

function nothing(reason: string): CiFixDecision {
  return { kind: "nothing", reason };
}

function renderStopComment(
  names: readonly string[],
  options: CiFixOptions,
  headSha: string,
  attempts: number,
): string {
  const list =
    names.length === 0
      ? "The checks that failed have since been re-run or removed."
      : `Still failing on ${headSha.slice(0, 7)}:\n\n${names.map((name) => `- \`${name.replace(/`/g, "'")}\``).join("\n")}`;
  return [
    `🛑 CI is still red after ${attempts} automatic ${attempts === 1 ? "attempt" : "attempts"} to fix it (the limit, \`ci.max_fix_attempts\` in \`.github/agentforge.yml\`, is ${options.maxAttempts}). I am not trying again on my own.`,
    "",
    list,
    "",
    `\`${options.mention} fix ci\` asks for another try.`,
    "",
    renderCiFixMarker({ kind: "stopped", headSha }),
  ].join("\n");
}
