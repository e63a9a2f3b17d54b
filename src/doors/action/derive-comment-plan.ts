import { readConversationMode } from "../github/commands/conversation-mode.js";
import { deriveCommentRequest } from "../github/commands/derive-comment-request.js";
import { fixRequestOnPullRequest } from "../github/commands/fix-on-pull-request.js";
import {
  issueCommentPayloadSchema,
  parseEventPayload,
  reviewCommentPayloadSchema,
  type PayloadResult,
} from "./action-event-payload.js";
import {
  APP_SLUG,
  failure,
  success,
  type ActionEvent,
  type ActionPlanResult,
  type Actor,
  type CommentPlace,
} from "./action-plan.js";

/** A command comment, from the conversation tab or from a review thread, in one shape. */
interface CommandComment {
  readonly action: string;
  readonly number: number;
  readonly isPullRequest: boolean;
  readonly labels: readonly { readonly name: string }[] | null | undefined;
  readonly comment: { readonly id: number; readonly body: string | null };
  readonly sender: Actor;
  /** The file and line of a review comment; null on the conversation tab. */
  readonly thread: { readonly path: string; readonly line: number | null } | null;
}

function readCommandComment(event: ActionEvent): PayloadResult<CommandComment> {
  if (event.name === "pull_request_review_comment") {
    const parsed = parseEventPayload(reviewCommentPayloadSchema, event.name, event.payload);
    if (!parsed.success) return parsed;
    const payload = parsed.value;
    return {
      success: true,
      value: {
        action: payload.action,
        number: payload.pull_request.number,
        isPullRequest: true,
        labels: payload.pull_request.labels,
        comment: payload.comment,
        sender: payload.sender,
        thread: { path: payload.comment.path, line: payload.comment.line ?? null },
      },
    };
  }
  const parsed = parseEventPayload(issueCommentPayloadSchema, event.name, event.payload);
  if (!parsed.success) return parsed;
  const payload = parsed.value;
  return {
    success: true,
    value: {
      action: payload.action,
      number: payload.issue.number,
      isPullRequest: payload.issue.pull_request !== undefined && payload.issue.pull_request !== null,
      labels: payload.issue.labels,
      comment: payload.comment,
      sender: payload.sender,
      thread: null,
    },
  };
}

/**
 * A comment addressed to the app (`issue_comment`, or `pull_request_review_comment` answered in
 * its thread), as the Action reads it: a job, a reply, or a skip with the reason.
 */
export function deriveFromComment(event: ActionEvent, appSlug: string = APP_SLUG): ActionPlanResult {
  const parsed = readCommandComment(event);
  if (!parsed.success) return failure(parsed.error);
  const payload = parsed.value;
  const place: { commentPlace?: CommentPlace } =
    payload.thread === null ? {} : { commentPlace: "review-comment" };
  if (payload.action !== "created")
    return success({ kind: "skip", reason: `comment ${payload.action}, not created` });
  const mode = readConversationMode(payload.labels);
  const request = deriveCommentRequest(
    { body: payload.comment.body ?? "", author: payload.sender, isPullRequest: payload.isPullRequest, mode },
    appSlug,
  );
  if (request.kind === "nothing") return success({ kind: "skip", reason: request.reason });
  const { number, isPullRequest } = payload;
  const requester = payload.sender;
  const reply = (text: string): ActionPlanResult =>
    success({ kind: "reply", number, text, requester, commentId: payload.comment.id, ...place });
  switch (request.kind) {
    case "reply":
      return reply(request.text);
    case "mode":
      return success({
        kind: "reply",
        number,
        text: "",
        requester,
        commentId: payload.comment.id,
        ...place,
        modeChange: { command: request.command, current: request.current },
      });
    case "stop":
      return reply(
        "Here each command runs as a workflow run: cancel it from the repository's Actions tab to stop it.",
      );
    case "job":
      break;
  }
  const value = request.command;
  const chosen = "model" in value && value.model !== undefined ? { model: value.model } : {};
  const base = {
    owner: event.owner,
    repo: event.repo,
    number,
    isPullRequest,
    requester: requester.login,
    commentId: payload.comment.id,
    ...(payload.thread === null ? {} : { thread: payload.thread }),
  };
  switch (value.kind) {
    case "review":
    case "request":
      return success({
        kind: "job",
        job: {
          ...base,
          kind: value.kind,
          ...(value.kind === "request" ? { instructions: value.text } : {}),
          ...(value.kind === "review" && value.full === true ? { fullReview: true } : {}),
          ...chosen,
        },
        requester,
        // A review only reads, but it was asked for by a person: the same rule as every command.
        needsWriteAccess: true,
        commentId: payload.comment.id,
        ...place,
      });
    case "fix-ci":
      return success({
        kind: "job",
        job: { ...base, kind: "fix-ci", ...chosen },
        requester,
        needsWriteAccess: true,
        commentId: payload.comment.id,
        ...place,
      });
    case "fix":
    case "plan":
      return success({
        kind: "job",
        job:
          value.kind === "fix" && isPullRequest
            ? {
                ...base,
                kind: "request",
                instructions: fixRequestOnPullRequest(value.instructions),
                ...chosen,
              }
            : {
                ...base,
                kind: value.kind,
                ...(value.instructions === undefined ? {} : { instructions: value.instructions }),
                ...chosen,
              },
        requester,
        needsWriteAccess: true,
        commentId: payload.comment.id,
        ...place,
      });
  }
}
