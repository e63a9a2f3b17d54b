import { isBotSender } from "../github/commands/authorize-commenter.js";
import { derivePullRequestReview } from "../github/commands/derive-pull-request-review.js";
import { deriveFromComment } from "./derive-comment-plan.js";
import {
  dispatchPayloadSchema,
  issueCommentPayloadSchema,
  issuesPayloadSchema,
  parseEventPayload,
  pullRequestPayloadSchema,
} from "./action-event-payload.js";
import type { ActionMode } from "./action-inputs.js";
import { planEventTrigger } from "./plan-event-trigger.js";
import {
  APP_SLUG,
  failure,
  success,
  type ActionEvent,
  type ActionPlanResult,
  type Actor,
} from "./action-plan.js";

export {
  APP_SLUG,
  type ActionEvent,
  type ActionPlan,
  type ActionPlanResult,
  type Actor,
} from "./action-plan.js";

/**
 * Derives the job from the `mode` input and the workflow event. In `auto` mode: a comment
 * command, a pull request (review) or a manual dispatch (the prompt). Explicit modes act on the
 * event's issue or pull request with the prompt as instructions.
 */
export interface PlanInputs {
  readonly mode: ActionMode;
  readonly prompt: string | undefined;
  /** The name comments address (`trigger-phrase` without the `@`); `agentforge` when unset. */
  readonly triggerName?: string;
  readonly triggerLabel?: string | undefined;
}

export function deriveActionPlan(inputs: PlanInputs, event: ActionEvent): ActionPlanResult {
  // Its token can write and its secrets are present while the code at hand may be a stranger's.
  if (event.name === "pull_request_target")
    return failure(
      "pull_request_target is not supported: it runs with write access and secrets on code from forks; use pull_request",
    );
  switch (inputs.mode) {
    case "run":
      return inputs.prompt === undefined
        ? failure('input "prompt" is required in run mode: say what to do')
        : success({ kind: "run", prompt: inputs.prompt });
    case "auto":
      return deriveAuto(inputs, event);
    case "fix":
    case "plan":
    case "review":
      return deriveExplicit(inputs.mode, inputs.prompt, event);
  }
}

function deriveAuto(inputs: PlanInputs, event: ActionEvent): ActionPlanResult {
  const { prompt } = inputs;
  const name = inputs.triggerName ?? APP_SLUG;
  const triggered = planEventTrigger(event, {
    appSlug: name,
    appLogins: [`${name}[bot]`],
    triggerLabel: inputs.triggerLabel,
  });
  if (triggered !== null) return success(triggered);
  switch (event.name) {
    case "issue_comment":
    case "pull_request_review_comment":
      return deriveFromComment(event, name);
    case "pull_request":
      return deriveReview(event, name);
    case "workflow_dispatch": {
      const payload = parseEventPayload(dispatchPayloadSchema, event.name, event.payload);
      const fromDispatch = payload.success ? payload.value.inputs?.["prompt"] : undefined;
      const text =
        prompt ??
        (typeof fromDispatch === "string" && fromDispatch.trim() !== "" ? fromDispatch.trim() : undefined);
      return text === undefined
        ? failure(
            'a workflow_dispatch run needs a prompt: set the "prompt" input (for example from a dispatch input)',
          )
        : success({ kind: "run", prompt: text });
    }
    default:
      return success({
        kind: "skip",
        reason: `mode auto does nothing on "${event.name}" events; use issue_comment, pull_request_review_comment, issues (assigned, labeled), pull_request, workflow_run (completed), check_suite (completed) or workflow_dispatch, or set mode explicitly`,
      });
  }
}

function deriveReview(event: ActionEvent, name: string): ActionPlanResult {
  const parsed = parseEventPayload(pullRequestPayloadSchema, event.name, event.payload);
  if (!parsed.success) return failure(parsed.error);
  const derived = derivePullRequestReview(parsed.value);
  if (derived.kind === "nothing")
    return success({
      kind: "skip",
      reason:
        derived.cause === "paused" ? `paused or ignored here (\`@${name} resume\` lifts it)` : derived.reason,
    });
  if (derived.draft)
    return success({ kind: "skip", reason: "the pull request is a draft; it is reviewed when marked ready" });
  return success({
    kind: "job",
    job: {
      kind: "review",
      owner: event.owner,
      repo: event.repo,
      number: derived.number,
      isPullRequest: true,
      requester: derived.requester.login,
      headSha: derived.headSha,
      ...(derived.beforeSha === null ? {} : { beforeSha: derived.beforeSha }),
    },
    requester: derived.requester,
    // A review only reads and comments, so anyone's pull request, a fork's too, may be reviewed.
    needsWriteAccess: false,
  });
}

function deriveExplicit(
  mode: "fix" | "plan" | "review",
  prompt: string | undefined,
  event: ActionEvent,
): ActionPlanResult {
  const target = findTarget(event);
  if (!target.success) return target;
  const { number, isPullRequest, requester, headSha } = target.value;
  if (isBotSender(requester))
    return success({ kind: "skip", reason: `triggered by the bot ${requester.login}` });
  if (mode === "review" && !isPullRequest)
    return failure(
      `mode review needs a pull request, but #${number} of this ${event.name} event is an issue`,
    );
  return success({
    kind: "job",
    job: {
      kind: mode,
      owner: event.owner,
      repo: event.repo,
      number,
      isPullRequest,
      requester: requester.login,
      ...(prompt === undefined ? {} : { instructions: prompt }),
      ...(headSha === undefined ? {} : { headSha }),
    },
    requester,
    needsWriteAccess: mode !== "review",
  });
}

interface Target {
  readonly number: number;
  readonly isPullRequest: boolean;
  readonly requester: Actor;
  readonly headSha?: string;
}

function findTarget(
  event: ActionEvent,
): { success: true; value: Target } | { success: false; error: string } {
  switch (event.name) {
    case "issue_comment":
    case "issues": {
      const schema = event.name === "issues" ? issuesPayloadSchema : issueCommentPayloadSchema;
      const parsed = parseEventPayload(schema, event.name, event.payload);
      if (!parsed.success) return parsed;
      const issue = parsed.value.issue;
      return {
        success: true,
        value: {
          number: issue.number,
          isPullRequest: issue.pull_request !== undefined && issue.pull_request !== null,
          requester: parsed.value.sender,
        },
      };
    }
    case "pull_request": {
      const parsed = parseEventPayload(pullRequestPayloadSchema, event.name, event.payload);
      if (!parsed.success) return parsed;
      const pull = parsed.value.pull_request;
      return {
        success: true,
        value: {
          number: pull.number,
          isPullRequest: true,
          requester: parsed.value.sender,
          headSha: pull.head.sha,
        },
      };
    }
    default:
      return {
        success: false,
        error: `this mode acts on an issue or pull request, but a ${event.name} event has none; use issue_comment, issues or pull_request, or mode run`,
      };
  }
}
