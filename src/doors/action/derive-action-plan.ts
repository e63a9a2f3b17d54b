import type { GitHubJob } from "../github/jobs/github-job.js";
import { isBotSender } from "../github/commands/authorize-commenter.js";
import { helpText } from "../github/commands/help-text.js";
import { parseCommand } from "../github/commands/parse-command.js";
import {
  dispatchPayloadSchema,
  issueCommentPayloadSchema,
  issuesPayloadSchema,
  parseEventPayload,
  pullRequestPayloadSchema,
} from "./action-event-payload.js";
import type { ActionMode } from "./action-inputs.js";
import { planEventTrigger } from "./plan-event-trigger.js";

export interface Actor {
  readonly login: string;
  readonly type?: string | undefined;
}

/** What the step will do, decided from the mode input and the event before anything is called. */
export type ActionPlan =
  | { readonly kind: "skip"; readonly reason: string }
  | { readonly kind: "run"; readonly prompt: string }
  | {
      readonly kind: "reply";
      readonly number: number;
      readonly text: string;
      readonly requester: Actor;
      readonly commentId?: number;
    }
  | {
      readonly kind: "job";
      readonly job: GitHubJob;
      readonly requester: Actor;
      /** Writes (fix, plan, request) need the requester to have write access; a review only reads. */
      readonly needsWriteAccess: boolean;
      readonly commentId?: number;
    };

export type ActionPlanResult =
  | { readonly success: true; readonly value: ActionPlan }
  | { readonly success: false; readonly error: string };

export interface ActionEvent {
  readonly name: string;
  readonly payload: unknown;
  readonly owner: string;
  readonly repo: string;
}

export const APP_SLUG = "agentforge";
const REVIEW_ACTIONS = new Set(["opened", "synchronize", "ready_for_review", "reopened"]);

/**
 * Derives the job from the `mode` input and the workflow event. In `auto` mode: a comment
 * command, a pull request (review) or a manual dispatch (the prompt). Explicit modes act on the
 * event's issue or pull request with the prompt as instructions.
 */
export function deriveActionPlan(
  inputs: { readonly mode: ActionMode; readonly prompt: string | undefined },
  event: ActionEvent,
): ActionPlanResult {
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
      return deriveAuto(inputs.prompt, event);
    case "fix":
    case "plan":
    case "review":
      return deriveExplicit(inputs.mode, inputs.prompt, event);
  }
}

function deriveAuto(prompt: string | undefined, event: ActionEvent): ActionPlanResult {
  const triggered = planEventTrigger(event, [`${APP_SLUG}[bot]`]);
  if (triggered !== null) return success(triggered);
  switch (event.name) {
    case "issue_comment":
      return deriveFromComment(event);
    case "pull_request":
      return deriveReview(event);
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
        reason: `mode auto does nothing on "${event.name}" events; use issue_comment, issues (assigned), pull_request or workflow_dispatch, or set mode explicitly`,
      });
  }
}

function deriveFromComment(event: ActionEvent): ActionPlanResult {
  const parsed = parseEventPayload(issueCommentPayloadSchema, event.name, event.payload);
  if (!parsed.success) return failure(parsed.error);
  const payload = parsed.value;
  if (payload.action !== "created")
    return success({ kind: "skip", reason: `comment ${payload.action}, not created` });
  // Bots first: their text may be assembled from anyone's input, and this step's own comments are bot comments.
  if (isBotSender(payload.sender))
    return success({ kind: "skip", reason: `comment by the bot ${payload.sender.login}` });
  const command = parseCommand(payload.comment.body ?? "", APP_SLUG);
  if (command === null) return success({ kind: "skip", reason: `the comment does not address @${APP_SLUG}` });
  const number = payload.issue.number;
  const isPullRequest = payload.issue.pull_request !== undefined && payload.issue.pull_request !== null;
  const requester = payload.sender;
  const reply = (text: string): ActionPlanResult =>
    success({ kind: "reply", number, text, requester, commentId: payload.comment.id });
  if (!command.success)
    return reply(`I did not understand that: ${command.error.message}.\n\n${helpText(APP_SLUG)}`);
  const value = command.value;
  const base = {
    owner: event.owner,
    repo: event.repo,
    number,
    isPullRequest,
    requester: requester.login,
    commentId: payload.comment.id,
  };
  switch (value.kind) {
    case "help":
      return reply(helpText(APP_SLUG));
    case "stop":
      return reply(
        "Here each command runs as a workflow run: cancel it from the repository's Actions tab to stop it.",
      );
    case "review":
    case "request":
      if (!isPullRequest) {
        const what = value.kind === "review" ? "A review" : "A free-form request";
        return reply(
          `${what} works on pull requests. On an issue, use \`@${APP_SLUG} fix\` or \`@${APP_SLUG} plan\`.\n\n${helpText(APP_SLUG)}`,
        );
      }
      return success({
        kind: "job",
        job: { ...base, kind: value.kind, ...(value.kind === "request" ? { instructions: value.text } : {}) },
        requester,
        // A review only reads, but it was asked for by a person: the same rule as every command.
        needsWriteAccess: true,
        commentId: payload.comment.id,
      });
    case "fix":
    case "plan":
      return success({
        kind: "job",
        job: {
          ...base,
          kind: value.kind,
          ...(value.instructions === undefined ? {} : { instructions: value.instructions }),
        },
        requester,
        needsWriteAccess: true,
        commentId: payload.comment.id,
      });
  }
}

function deriveReview(event: ActionEvent): ActionPlanResult {
  const parsed = parseEventPayload(pullRequestPayloadSchema, event.name, event.payload);
  if (!parsed.success) return failure(parsed.error);
  const payload = parsed.value;
  const pull = payload.pull_request;
  if (!REVIEW_ACTIONS.has(payload.action))
    return success({ kind: "skip", reason: `pull request ${payload.action}: nothing to review` });
  // Includes a push by the bot to its own branch: reviewing its own push would loop.
  if (isBotSender(payload.sender))
    return success({ kind: "skip", reason: `pushed by the bot ${payload.sender.login}` });
  if (pull.state !== "open") return success({ kind: "skip", reason: "the pull request is not open" });
  if (pull.draft === true)
    return success({ kind: "skip", reason: "the pull request is a draft; it is reviewed when marked ready" });
  return success({
    kind: "job",
    job: {
      kind: "review",
      owner: event.owner,
      repo: event.repo,
      number: pull.number,
      isPullRequest: true,
      requester: payload.sender.login,
      headSha: pull.head.sha,
      ...(payload.action === "synchronize" && payload.before !== undefined
        ? { beforeSha: payload.before }
        : {}),
    },
    requester: payload.sender,
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

function success(value: ActionPlan): ActionPlanResult {
  return { success: true, value };
}

function failure(error: string): ActionPlanResult {
  return { success: false, error };
}
