import { isBotSender } from "../github/commands/authorize-commenter.js";
import { deriveCiFailure } from "../github/commands/derive-ci-failure.js";
import { deriveEventTrigger } from "../github/commands/derive-event-trigger.js";
import { parseCommand } from "../github/commands/parse-command.js";
import type { IntakeEvent } from "./intake-context.js";
import type { AnyIntakeDecision } from "./to-webhook-result.js";
import type { IntakeEventName } from "./intake-event-names.js";
import {
  issueCommentPayloadSchema,
  issuesLabeledPayloadSchema,
  parseWebhookPayload,
  pullRequestLabeledPayloadSchema,
  pullRequestPayloadSchema,
  reviewCommentPayloadSchema,
} from "./webhook-payloads.js";

/** What admission decided: triage it (after a durable record), or nothing to do. */
export type Admission =
  { readonly needsTriage: true } | { readonly needsTriage: false; readonly decision: AnyIntakeDecision };

const TRIAGE: Admission = { needsTriage: true };

/**
 * Admission: what can be decided from the payload alone, before the webhook is answered, with
 * no GitHub request and no disk write. Most deliveries end here (comments without a mention,
 * bots, closed pull requests); the rest may be commands and go to the intake journal and triage.
 * A payload intake cannot use throws a `WebhookPayloadError` (answered 400). It needs no Octokit,
 * so it runs on the intake thread as well as in the Probot app.
 */
export function admitDelivery(
  event: Pick<IntakeEvent, "id" | "payload"> & { readonly name: IntakeEventName },
  appSlug: string,
): Admission {
  switch (event.name) {
    case "issue_comment.created": {
      const payload = parseWebhookPayload(issueCommentPayloadSchema, event.name, event.payload);
      return admitComment(payload.comment.user ?? payload.sender, payload.comment.body, appSlug);
    }
    case "pull_request_review_comment.created": {
      const payload = parseWebhookPayload(reviewCommentPayloadSchema, event.name, event.payload);
      return admitComment(payload.comment.user ?? payload.sender, payload.comment.body, appSlug);
    }
    case "pull_request.opened":
    case "pull_request.ready_for_review":
    case "pull_request.synchronize":
    case "pull_request.reopened": {
      const payload = parseWebhookPayload(pullRequestPayloadSchema, event.name, event.payload);
      if (isBotSender(payload.sender)) return { needsTriage: false, decision: "ignored-bot" };
      if (payload.pull_request.state !== "open") return { needsTriage: false, decision: "closed" };
      return TRIAGE;
    }
    case "issues.labeled": {
      const payload = parseWebhookPayload(issuesLabeledPayloadSchema, event.name, event.payload);
      if (isBotSender(payload.sender)) return { needsTriage: false, decision: "ignored-bot" };
      if (payload.label === undefined) return { needsTriage: false, decision: "other-label" };
      return TRIAGE;
    }
    case "pull_request.labeled": {
      const payload = parseWebhookPayload(pullRequestLabeledPayloadSchema, event.name, event.payload);
      if (isBotSender(payload.sender)) return { needsTriage: false, decision: "ignored-bot" };
      if (payload.label === undefined) return { needsTriage: false, decision: "other-label" };
      return TRIAGE;
    }
    case "issues.assigned":
    case "pull_request.review_requested": {
      // Decided from the payload alone: only an assignment or a review request of this app goes on.
      const derived = deriveEventTrigger(event.name, event.payload, { appLogins: [`${appSlug}[bot]`] });
      if (derived === null || derived.kind === "nothing")
        return { needsTriage: false, decision: "not-for-app" };
      return TRIAGE;
    }
    case "check_suite.completed":
    case "workflow_run.completed": {
      // Green suites, suites off any pull request, and the app's own check run end here.
      const derived = deriveCiFailure(event.name, event.payload, { appSlug });
      if (derived === null || derived.kind === "nothing")
        return { needsTriage: false, decision: "not-for-app" };
      return TRIAGE;
    }
  }
}

function admitComment(
  author: { readonly login: string; readonly type?: string | undefined },
  body: string | null,
  appSlug: string,
): Admission {
  // Bots first: their text may be assembled from anyone's input.
  if (isBotSender(author)) return { needsTriage: false, decision: "ignored-bot" };
  if (parseCommand(body ?? "", appSlug) === null) return { needsTriage: false, decision: "no-mention" };
  return TRIAGE;
}
