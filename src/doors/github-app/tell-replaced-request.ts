import type { ProbotOctokit } from "probot";
import { postReply, type CommandSource } from "../github/github-replies.js";
import type { IntakeDependencies } from "./intake-context.js";

/**
 * A request that was still waiting when a newer one for the same issue or pull request arrived is
 * replaced (the newer one carries the latest intent). A person who commanded it saw 👀 and must
 * also hear that it will not run: the reply goes where they wrote. Automatic work (a push's
 * review, a label) was never acknowledged in a comment, so it is replaced without one.
 */
export async function tellReplacedRequest(
  octokit: Pick<ProbotOctokit, "request">,
  deps: Pick<IntakeDependencies, "queue" | "redact" | "logger">,
  replacedTaskId: string | undefined,
  newer: { readonly requester: string; readonly kind: string },
): Promise<void> {
  if (replacedTaskId === undefined) return;
  const replaced = await deps.queue.get(replacedTaskId);
  if (replaced === null) return;
  const task = replaced.payload;
  if (task.commentId === null || (task.trigger !== "comment" && task.trigger !== "review-comment")) return;
  const source: CommandSource =
    task.trigger === "review-comment"
      ? {
          kind: "review-comment",
          owner: task.owner,
          repo: task.repo,
          pullNumber: task.number,
          commentId: task.commentId,
        }
      : {
          kind: "issue-comment",
          owner: task.owner,
          repo: task.repo,
          issueNumber: task.number,
          commentId: task.commentId,
        };
  const text = `⏭️ Not run: a newer request here (\`${newer.kind}\` by @${newer.requester}) arrived before this one started, and it replaces this one.`;
  try {
    await postReply(octokit, source, text, deps.redact);
  } catch (error) {
    deps.logger.warn(
      { err: error, taskId: replacedTaskId },
      "could not tell that a waiting request was replaced",
    );
  }
}
