import { tellReplacedRequest } from "./tell-replaced-request.js";
import { authorizeCommenter, isBotSender } from "../github/commands/authorize-commenter.js";
import { readConversationMode } from "../github/commands/conversation-mode.js";
import { renderBudgetComment } from "./budgets/render-budget-comment.js";
import { findSpentBudget } from "./find-spent-budget.js";
import { addEyesReaction, postReply } from "../github/github-replies.js";
import { taskKeyOf } from "./github-request.js";
import type { IntakeDependencies, IntakeEvent } from "./intake-context.js";
import { readRepositoryConfig } from "./read-repository-config.js";
import { issuesLabeledPayloadSchema, parseWebhookPayload } from "./webhook-payloads.js";

export type LabeledDecision =
  | "ignored-bot"
  | "redelivery"
  | "config-invalid"
  | "other-label"
  | "ignored-conversation"
  | "unauthorized"
  | "budget-spent"
  | "enqueued"
  | "duplicate";

/**
 * `issues.labeled` with the repository's trigger label: a fix on an issue, a review on a pull
 * request. Whoever added the label must hold the configured permission (triage can label). A
 * conversation the app was told to `ignore` starts nothing, as with assignments.
 */
export async function handleIssueLabeled(
  event: IntakeEvent,
  deps: IntakeDependencies,
): Promise<LabeledDecision> {
  const payload = parseWebhookPayload(issuesLabeledPayloadSchema, event.name, event.payload);
  const owner = payload.repository.owner.login;
  const repo = payload.repository.name;
  const number = payload.issue.number;
  const log = { delivery: event.id, owner, repo, number, label: payload.label?.name };
  if (isBotSender(payload.sender)) return "ignored-bot";
  if (payload.label === undefined) return "other-label";
  // `ignore` leaves a conversation alone, labels included; `pause` stops only automatic reviews.
  if (readConversationMode(payload.issue.labels) === "ignored") {
    deps.logger.info(log, "trigger label on an ignored conversation: nothing runs");
    return "ignored-conversation";
  }
  if (await deps.queue.hasDelivery(event.id)) return "redelivery";
  const config = await readRepositoryConfig(event);
  if (!config.success) {
    // Any label event would repeat a comment here; the log says why nothing ran.
    deps.logger.warn({ ...log, problem: config.error.kind }, "repository config stops the label trigger");
    return "config-invalid";
  }
  const trigger = config.value.trigger.label;
  if (trigger === undefined || trigger.toLowerCase() !== payload.label.name.toLowerCase())
    return "other-label";
  const authorization = await authorizeCommenter(event.octokit, {
    owner,
    repo,
    username: payload.sender.login,
    senderType: payload.sender.type,
    minimumPermission: config.value.trigger.min_permission,
    logger: deps.logger,
  });
  if (!authorization.authorized) {
    deps.logger.info({ ...log, reason: authorization.reason }, "trigger label added by an unauthorized user");
    return "unauthorized";
  }
  const spent = await findSpentBudget(deps, payload.installation.id);
  if (spent !== null) {
    deps.logger.info({ ...log, reason: spent.reason }, "budget spent: label trigger answered, not run");
    if (await deps.queue.rememberDelivery(event.id)) {
      const source = { kind: "issue" as const, owner, repo, issueNumber: number };
      await postReply(event.octokit, source, renderBudgetComment(spent, new Date(deps.now())), deps.redact);
    }
    return "budget-spent";
  }
  const isPullRequest = payload.issue.pull_request !== undefined && payload.issue.pull_request !== null;
  const result = await deps.queue.enqueue({
    deliveryId: event.id,
    key: taskKeyOf({ owner, repo, number }),
    installationId: payload.installation.id,
    payload: {
      deliveryId: event.id,
      eventName: event.name,
      installationId: payload.installation.id,
      owner,
      repo,
      number,
      isPullRequest,
      command: isPullRequest ? { kind: "review" } : { kind: "fix" },
      trigger: "label",
      requester: payload.sender.login,
      commentId: null,
      headSha: null,
      beforeSha: null,
      reviewComment: null,
      receivedAt: deps.now(),
    },
  });
  if (!result.accepted) return "duplicate";
  await tellReplacedRequest(event.octokit, deps, result.replacedTaskId, {
    requester: payload.sender.login,
    kind: isPullRequest ? "review" : "fix",
  });
  deps.logger.info({ ...log, taskId: result.taskId, reason: result.reason }, "label trigger enqueued");
  await deps.acknowledge(() =>
    addEyesReaction(event.octokit, { kind: "issue", owner, repo, issueNumber: number }),
  );
  return "enqueued";
}
