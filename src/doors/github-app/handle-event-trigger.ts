import { tellReplacedRequest } from "./tell-replaced-request.js";
import { authorizeCommenter } from "../github/commands/authorize-commenter.js";
import { ANY_LABEL, deriveEventTrigger, isTriggerLabel } from "../github/commands/derive-event-trigger.js";
import { renderBudgetComment } from "./budgets/render-budget-comment.js";
import { findSpentBudget } from "./find-spent-budget.js";
import { addEyesReaction, postReply } from "../github/github-replies.js";
import { taskKeyOf } from "./github-request.js";
import { replyOnce } from "./reply-once.js";
import type { IntakeDependencies, IntakeEvent } from "./intake-context.js";
import { readRepositoryConfig } from "./read-repository-config.js";
import { parseWebhookPayload } from "./webhook-payloads.js";
import { z } from "zod";

export type EventTriggerDecision =
  | "not-for-app"
  | "other-label"
  | "redelivery"
  | "config-invalid"
  | "unauthorized"
  | "budget-spent"
  | "enqueued"
  | "duplicate";

const envelopeSchema = z.object({
  repository: z.object({ name: z.string().min(1), owner: z.object({ login: z.string().min(1) }) }),
  installation: z.object({ id: z.number().int().positive() }),
});

/**
 * `issues.assigned` to the app (a fix), `pull_request.review_requested` from the app (a review)
 * and `issues.labeled` with the repository's trigger label (either). Whoever assigned, requested
 * or labelled must hold the repository's configured permission.
 */
export async function handleEventTrigger(
  event: IntakeEvent,
  deps: IntakeDependencies,
): Promise<EventTriggerDecision> {
  const envelope = parseWebhookPayload(envelopeSchema, event.name, event.payload);
  const owner = envelope.repository.owner.login;
  const repo = envelope.repository.name;
  const installationId = envelope.installation.id;
  const isLabel = event.name === "issues.labeled" || event.name === "pull_request.labeled";
  // The trigger label is in the repository's config: every other check comes first, so a label
  // event that starts nothing anyway costs no request.
  const derived = deriveEventTrigger(event.name, event.payload, {
    appLogins: [`${deps.appSlug}[bot]`],
    triggerLabel: ANY_LABEL,
  });
  if (derived === null || derived.kind === "nothing") {
    deps.logger.debug({ delivery: event.id, reason: derived?.reason }, "event asks nothing of the app");
    return isLabel ? "other-label" : "not-for-app";
  }
  const { number, requester } = derived;
  const log = { delivery: event.id, owner, repo, number, trigger: derived.trigger };
  if (await deps.queue.hasDelivery(event.id)) return "redelivery";
  const config = await readRepositoryConfig(event);
  if (!config.success) {
    deps.logger.warn({ ...log, problem: config.error.kind }, "repository config stops the trigger");
    // Any label event would repeat a comment here; the log says why nothing ran.
    if (!isLabel) {
      const source = { kind: "issue" as const, owner, repo, issueNumber: number };
      await replyOnce(deps.queue, event.id, () =>
        postReply(
          event.octokit,
          source,
          "I cannot start: `.github/agentforge.yml` on the default branch could not be read or is invalid. Fix it and assign me again.",
          deps.redact,
        ),
      );
    }
    return "config-invalid";
  }
  if (isLabel && !isTriggerLabel(derived.label, config.value.trigger.label)) return "other-label";
  const authorization = await authorizeCommenter(event.octokit, {
    owner,
    repo,
    username: requester.login,
    senderType: requester.type,
    minimumPermission: config.value.trigger.min_permission,
    logger: deps.logger,
  });
  if (!authorization.authorized) {
    deps.logger.info({ ...log, reason: authorization.reason }, "trigger by a user without permission");
    return "unauthorized";
  }
  const source = { kind: "issue" as const, owner, repo, issueNumber: number };
  const spent = await findSpentBudget(deps, installationId);
  if (spent !== null) {
    await replyOnce(deps.queue, event.id, () =>
      postReply(event.octokit, source, renderBudgetComment(spent, new Date(deps.now())), deps.redact),
    );
    return "budget-spent";
  }
  const result = await deps.queue.enqueue({
    deliveryId: event.id,
    key: taskKeyOf({ owner, repo, number }),
    installationId,
    // Its kind lets a later push cancel a requested review that is running (supersede-rules.ts).
    kind: derived.command.kind,
    payload: {
      deliveryId: event.id,
      eventName: event.name,
      installationId,
      owner,
      repo,
      number,
      isPullRequest: derived.isPullRequest,
      command: derived.command,
      trigger: derived.trigger,
      requester: requester.login,
      commentId: null,
      headSha: derived.headSha,
      beforeSha: null,
      reviewComment: null,
      receivedAt: deps.now(),
    },
  });
  if (!result.accepted) return "duplicate";
  await tellReplacedRequest(event.octokit, deps, result.replacedTaskId, {
    requester: requester.login,
    kind: derived.command.kind,
  });
  deps.logger.info({ ...log, taskId: result.taskId, reason: result.reason }, "event trigger enqueued");
  await deps.acknowledge(() => addEyesReaction(event.octokit, source));
  return "enqueued";
}
