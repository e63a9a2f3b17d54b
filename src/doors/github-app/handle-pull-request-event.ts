import { tellReplacedRequest } from "./tell-replaced-request.js";
import { derivePullRequestReview } from "../github/commands/derive-pull-request-review.js";
import { renderBudgetComment } from "./budgets/render-budget-comment.js";
import { explainConfigProblem } from "./explain-config-problem.js";
import { findSpentBudget } from "./find-spent-budget.js";
import { postReply } from "../github/github-replies.js";
import { replyOnce } from "./reply-once.js";
import { taskKeyOf, type GitHubRequest } from "./github-request.js";
import { supersedeRulesFor } from "./supersede-rules.js";
import type { IntakeDependencies, IntakeEvent } from "./intake-context.js";
import { readRepositoryConfig } from "./read-repository-config.js";
import { parseWebhookPayload, pullRequestPayloadSchema } from "./webhook-payloads.js";

export type PullRequestDecision =
  | "ignored-bot"
  | "redelivery"
  | "config-invalid"
  | "auto-review-off"
  | "draft-skipped"
  | "closed"
  | "paused"
  | "budget-spent"
  | "enqueued"
  | "duplicate";

/**
 * `pull_request.opened|ready_for_review|synchronize`: an automatic review when the repository
 * asks for one. Review is read-only, so a pull request from a fork may be reviewed too.
 */
export async function handlePullRequestEvent(
  event: IntakeEvent,
  deps: IntakeDependencies,
): Promise<PullRequestDecision> {
  const payload = parseWebhookPayload(pullRequestPayloadSchema, event.name, event.payload);
  const owner = payload.repository.owner.login;
  const repo = payload.repository.name;
  const pull = payload.pull_request;
  const log = { delivery: event.id, owner, repo, number: pull.number, action: payload.action };
  const derived = derivePullRequestReview(payload);
  if (derived.kind === "nothing") {
    switch (derived.cause) {
      case "bot":
        return "ignored-bot";
      case "closed":
      case "not-a-review-action":
        return "closed";
      case "paused":
        return "paused";
    }
  }
  if (await deps.queue.hasDelivery(event.id)) return "redelivery";
  const config = await readRepositoryConfig(event);
  if (!config.success) {
    // Say so once, when the pull request opens; every push would otherwise repeat it.
    if (payload.action === "opened") {
      const source = { kind: "issue" as const, owner, repo, issueNumber: pull.number };
      await replyOnce(deps.queue, event.id, () =>
        postReply(event.octokit, source, explainConfigProblem(config), deps.redact),
      );
    }
    deps.logger.warn({ ...log, problem: config.error.kind }, "repository config stops the automatic review");
    return "config-invalid";
  }
  if (!config.value.review.auto) return "auto-review-off";
  if (derived.draft && !config.value.review.drafts) return "draft-skipped";
  const spent = await findSpentBudget(deps, payload.installation.id);
  if (spent !== null) {
    // Said once, when the pull request opens; every push would otherwise repeat it.
    if (payload.action === "opened") {
      const source = { kind: "issue" as const, owner, repo, issueNumber: pull.number };
      await replyOnce(deps.queue, event.id, () =>
        postReply(event.octokit, source, renderBudgetComment(spent, new Date(deps.now())), deps.redact),
      );
    }
    deps.logger.info({ ...log, reason: spent.reason }, "budget spent: automatic review skipped");
    return "budget-spent";
  }
  const request: GitHubRequest = {
    deliveryId: event.id,
    eventName: event.name,
    installationId: payload.installation.id,
    owner,
    repo,
    number: pull.number,
    isPullRequest: true,
    command: { kind: "review" },
    trigger: "pull-request",
    requester: payload.sender.login,
    commentId: null,
    headSha: derived.headSha,
    beforeSha: derived.beforeSha,
    reviewComment: null,
    receivedAt: deps.now(),
  };
  // A push supersedes the review still running for the old head (see supersede-rules.ts).
  const result = await deps.queue.enqueue({
    deliveryId: event.id,
    key: taskKeyOf({ owner, repo, number: pull.number }),
    installationId: payload.installation.id,
    payload: request,
    ...supersedeRulesFor(request),
  });
  if (!result.accepted) return "duplicate";
  await tellReplacedRequest(event.octokit, deps, result.replacedTaskId, {
    requester: payload.sender.login,
    kind: "review",
  });
  deps.logger.info(
    {
      ...log,
      taskId: result.taskId,
      reason: result.reason,
      ...(result.cancelledRunningTaskId === undefined ? {} : { cancelled: result.cancelledRunningTaskId }),
    },
    "automatic review enqueued",
  );
  return "enqueued";
}
