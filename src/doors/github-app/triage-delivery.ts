import { readConversationMode } from "../github/commands/conversation-mode.js";
import { handleCiFailure } from "./handle-ci-failure.js";
import { handleCommentCommand } from "./handle-comment-command.js";
import { handleEventTrigger } from "./handle-event-trigger.js";
import { handlePullRequestEvent } from "./handle-pull-request-event.js";
import type { IntakeDependencies, IntakeEvent } from "./intake-context.js";
import { isIntakeEventName } from "./intake-event-names.js";
import type { AnyIntakeDecision } from "./to-webhook-result.js";
import {
  issueCommentPayloadSchema,
  parseWebhookPayload,
  reviewCommentPayloadSchema,
} from "./webhook-payloads.js";

export { INTAKE_EVENTS, isIntakeEventName, type IntakeEventName } from "./intake-event-names.js";

/**
 * Triage: the part of intake that asks GitHub (permission, repository config) and the budgets,
 * then enqueues a task or replies. It runs after the webhook is answered, on a delivery the
 * intake journal already holds, so it may run again after a crash: each handler is idempotent
 * by delivery id (the queue refuses a second task, and a reply is remembered before it is posted).
 */
export function triageDelivery(event: IntakeEvent, deps: IntakeDependencies): Promise<AnyIntakeDecision> {
  const name = event.name;
  if (!isIntakeEventName(name)) throw new Error(`no triage for ${name}`);
  switch (name) {
    case "issue_comment.created": {
      const payload = parseWebhookPayload(issueCommentPayloadSchema, name, event.payload);
      const owner = payload.repository.owner.login;
      const repo = payload.repository.name;
      const isPullRequest = payload.issue.pull_request !== undefined && payload.issue.pull_request !== null;
      return handleCommentCommand(
        event,
        {
          source: {
            kind: "issue-comment",
            owner,
            repo,
            issueNumber: payload.issue.number,
            commentId: payload.comment.id,
          },
          number: payload.issue.number,
          isPullRequest,
          body: payload.comment.body ?? "",
          author: payload.comment.user ?? payload.sender,
          headSha: null,
          reviewComment: null,
          installationId: payload.installation.id,
          mode: readConversationMode(payload.issue.labels),
        },
        deps,
      );
    }
    case "pull_request_review_comment.created": {
      const payload = parseWebhookPayload(reviewCommentPayloadSchema, name, event.payload);
      const owner = payload.repository.owner.login;
      const repo = payload.repository.name;
      const pullNumber = payload.pull_request.number;
      return handleCommentCommand(
        event,
        {
          source: { kind: "review-comment", owner, repo, pullNumber, commentId: payload.comment.id },
          number: pullNumber,
          isPullRequest: true,
          body: payload.comment.body ?? "",
          author: payload.comment.user ?? payload.sender,
          headSha: payload.pull_request.head.sha,
          reviewComment: { path: payload.comment.path, line: payload.comment.line ?? null },
          installationId: payload.installation.id,
          mode: readConversationMode(payload.pull_request.labels),
        },
        deps,
      );
    }
    case "pull_request.opened":
    case "pull_request.ready_for_review":
    case "pull_request.synchronize":
    case "pull_request.reopened":
      return handlePullRequestEvent(event, deps);
    case "issues.labeled":
    case "pull_request.labeled":
    case "issues.assigned":
    case "pull_request.review_requested":
      return handleEventTrigger(event, deps);
    case "check_suite.completed":
    case "workflow_run.completed":
      return handleCiFailure(event, deps);
  }
}
