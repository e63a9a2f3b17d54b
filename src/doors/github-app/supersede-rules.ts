import type { TaskInput } from "../../queue/task-queue.js";
import type { GitHubRequest } from "./github-request.js";

export type SupersedeFields = Pick<TaskInput<GitHubRequest>, "kind" | "supersedeRunning">;

/**
 * Which newer request cancels which running one on the same pull request (docs/deployment.md,
 * "Superseded work"). Every task is enqueued with its command as its kind; only these pairs
 * cancel, in the same queue step as the newer task is enqueued:
 *
 * - a push (`pull_request.synchronize`) cancels a running review: it reads a head that is no
 *   longer the pull request's, and the push's own review reads the new one. A push never cancels
 *   a fix or request: the push may be that very run's own, and a person's push makes the run's
 *   push fail as not fast-forward, which it reports;
 * - a newer `fix` or free-form request on a pull request cancels a running `fix` or request
 *   there: the newer instruction carries the latest intent for the same branch, as it already
 *   does for a waiting one;
 * - a `review` command, `plan`, labels and assignments cancel nothing: they wait their turn.
 */
export function supersedeRulesFor(request: GitHubRequest): SupersedeFields {
  const kind = request.command.kind;
  if (kind === "review" && request.trigger === "pull-request" && request.beforeSha !== null) {
    const head = request.headSha === null ? "" : ` ${request.headSha.slice(0, 7)}`;
    return {
      kind,
      supersedeRunning: {
        kinds: ["review"],
        reason: `a newer push${head} arrived; reviewing that instead`,
      },
    };
  }
  if ((kind === "fix" || kind === "request") && request.isPullRequest) {
    return {
      kind,
      supersedeRunning: {
        kinds: ["fix", "request"],
        reason: `a newer \`${kind}\` request by @${request.requester} arrived; running that instead`,
      },
    };
  }
  return { kind };
}
