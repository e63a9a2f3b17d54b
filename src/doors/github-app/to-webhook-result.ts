import type { WebhookResult } from "../../observability/create-metrics.js";
import type { IntakeDecision } from "./handle-comment-command.js";
import type { CiFailureDecision } from "./handle-ci-failure.js";
import type { EventTriggerDecision } from "./handle-event-trigger.js";
import type { PullRequestDecision } from "./handle-pull-request-event.js";

export type AnyIntakeDecision =
  IntakeDecision | PullRequestDecision | EventTriggerDecision | CiFailureDecision;

/** Folds the handlers' detailed decisions into the few results the delivery metric keeps. */
export function toWebhookResult(decision: AnyIntakeDecision): WebhookResult {
  switch (decision) {
    case "enqueued":
    case "answered":
      return "accepted";
    case "duplicate":
    case "redelivery":
      return "duplicate";
    case "unauthorized":
    case "budget-spent":
      return "refused";
    case "config-invalid":
      return "invalid";
    case "ignored-bot":
    case "no-mention":
    case "other-label":
    case "auto-review-off":
    case "draft-skipped":
    case "closed":
    case "not-for-app":
    case "paused":
      return "ignored";
  }
}
