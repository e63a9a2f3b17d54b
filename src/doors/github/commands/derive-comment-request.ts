import { isBotSender, type Sender } from "./authorize-commenter.js";
import { isAllowedWhileIgnored, type ConversationMode } from "./conversation-mode.js";
import { helpText } from "./help-text.js";
import { parseCommand, type Command, type ModeCommandKind } from "./parse-command.js";

/** A comment addressed (or not) to the app, as both doors see it once the payload is read. */
export interface CommentForRequest {
  readonly body: string;
  readonly author: Sender;
  readonly isPullRequest: boolean;
  /** From the or pull request's labels (see conversation-mode.ts). */
  readonly mode: ConversationMode;
}

/**
 * What a comment asks for, decided from the comment alone: work for the door to authorize and
 * run, a reply, a change of how the app treats the conversation, a stop, or nothing (with the
 * reason, for the log). Nothing here asks GitHub: the door checks the commenter's permission
 * (and, on the App, the repository's config and budget) before it acts on `job`, `reply`, `mode`
 * or `stop`, so an unauthorized commenter gets no answer at all.
 */
export type CommentRequest =
  | { readonly kind: "nothing"; readonly cause: "bot" | "no-mention"; readonly reason: string }
  | { readonly kind: "reply"; readonly text: string; readonly reason: string }
  | { readonly kind: "mode"; readonly command: ModeCommandKind; readonly current: ConversationMode }
  | { readonly kind: "stop" }
  | { readonly kind: "job"; readonly command: Exclude<Command, { kind: "help" | "stop" | ModeCommandKind }> };

/** The one derivation of a comment, for the App's triage and the Action's plan alike. */
export function deriveCommentRequest(comment: CommentForRequest, appSlug: string): CommentRequest {
  // Bots first, before anything else: their text may be assembled from anyone's input, and the
  // app's own comments are bot comments.
  if (isBotSender(comment.author))
    return { kind: "nothing", cause: "bot", reason: `comment by the bot ${comment.author.login}` };
  const parsed = parseCommand(comment.body, appSlug);
  if (parsed === null)
    return { kind: "nothing", cause: "no-mention", reason: `the comment does not address @${appSlug}` };
  if (!parsed.success)
    return {
      kind: "reply",
      reason: "not understood",
      text: `I did not understand that: ${parsed.error.message}.\n\n${helpText(appSlug)}`,
    };
  const command = parsed.value;
  if (comment.mode === "ignored" && !isAllowedWhileIgnored(command.kind))
    return {
      kind: "reply",
      reason: "the conversation is ignored",
      text: `I am ignoring this conversation, as asked. Say \`@${appSlug} resume\` first.`,
    };
  switch (command.kind) {
    case "help":
      return { kind: "reply", reason: "help", text: helpText(appSlug) };
    case "stop":
      return { kind: "stop" };
    case "pause":
    case "resume":
    case "ignore":
      return { kind: "mode", command: command.kind, current: comment.mode };
    case "review":
    case "request":
    case "fix-ci":
      if (!comment.isPullRequest) {
        const what =
          command.kind === "review"
            ? "A review"
            : command.kind === "fix-ci"
              ? "`fix ci`"
              : "A free-form request";
        return {
          kind: "reply",
          reason: `${command.kind} on an issue`,
          text: `${what} works on pull requests. On an issue, use \`@${appSlug} fix\` or \`@${appSlug} plan\`.\n\n${helpText(appSlug)}`,
        };
      }
      return { kind: "job", command };
    case "fix":
    case "plan":
      return { kind: "job", command };
  }
}
