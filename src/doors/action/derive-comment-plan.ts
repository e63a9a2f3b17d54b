import { isBotSender } from "../github/commands/authorize-commenter.js";
import { isAllowedWhileIgnored, readConversationMode } from "../github/commands/conversation-mode.js";
import { helpText } from "../github/commands/help-text.js";
import { fixRequestOnPullRequest } from "../github/commands/fix-on-pull-request.js";
import { parseCommand } from "../github/commands/parse-command.js";
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
export function deriveFromComment(event: ActionEvent): ActionPlanResult {
  const parsed = readCommandComment(event);
  if (!parsed.success) return failure(parsed.error);
  const payload = parsed.value;
  const place: { commentPlace?: CommentPlace } =
    payload.thread === null ? {} : { commentPlace: "review-comment" };
  if (payload.action !== "created")
    return success({ kind: "skip", reason: `comment ${payload.action}, not created` });
  // Bots first: their text may be assembled from anyone's input, and this step's own comments are bot comments.
  if (isBotSender(payload.sender))
    return success({ kind: "skip", reason: `comment by the bot ${payload.sender.login}` });
  const command = parseCommand(payload.comment.body ?? "", APP_SLUG);
  if (command === null) return success({ kind: "skip", reason: `the comment does not address @${APP_SLUG}` });
  const { number, isPullRequest } = payload;
  const requester = payload.sender;
  const reply = (text: string): ActionPlanResult =>
    success({ kind: "reply", number, text, requester, commentId: payload.comment.id, ...place });
  if (!command.success)
    return reply(`I did not understand that: ${command.error.message}.\n\n${helpText(APP_SLUG)}`);
  const value = command.value;
  const mode = readConversationMode(payload.labels);
  if (mode === "ignored" && !isAllowedWhileIgnored(value.kind))
    return reply(`I am ignoring this conversation, as asked. Say \`@${APP_SLUG} resume\` first.`);
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
    case "help":
      return reply(helpText(APP_SLUG));
    case "pause":
    case "resume":
    case "ignore":
      return success({
        kind: "reply",
        number,
        text: "",
        requester,
        commentId: payload.comment.id,
        ...place,
        modeChange: { command: value.kind, current: mode },
      });
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
