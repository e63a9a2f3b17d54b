import { tellReplacedRequest } from "./tell-replaced-request.js";
import { authorizeCommenter, meetsPermission } from "../github/commands/authorize-commenter.js";
import { renderBudgetComment } from "./budgets/render-budget-comment.js";
import { explainConfigProblem } from "./explain-config-problem.js";
import { findSpentBudget } from "./find-spent-budget.js";
import { addEyesReaction, postReply, type CommandSource } from "../github/github-replies.js";
import { replyOnce } from "./reply-once.js";
import { taskKeyOf, type GitHubRequest } from "./github-request.js";
import { supersedeRulesFor } from "./supersede-rules.js";
import type { IntakeDependencies, IntakeEvent } from "./intake-context.js";
import { deriveCommentRequest } from "../github/commands/derive-comment-request.js";
import { readRepositoryConfig } from "./read-repository-config.js";
import { applyModeCommand, type ConversationMode } from "../github/commands/conversation-mode.js";

export interface CommentCommandInput {
  readonly source: Extract<CommandSource, { kind: "issue-comment" | "review-comment" }>;
  readonly number: number;
  readonly isPullRequest: boolean;
  readonly body: string;
  readonly author: { readonly login: string; readonly type?: string | undefined };
  readonly headSha: string | null;
  readonly reviewComment: GitHubRequest["reviewComment"];
  readonly installationId: number;
  /** From the or pull request's labels in the payload (see conversation-mode.ts). */
  readonly mode?: ConversationMode;
}

export type IntakeDecision =
  | "ignored-bot"
  | "no-mention"
  | "redelivery"
  | "unauthorized"
  | "config-invalid"
  | "answered"
  | "budget-spent"
  | "enqueued"
  | "duplicate";

/**
 * Triage of a comment (after the webhook was answered; see `triageDelivery`): decide, record,
 * acknowledge. No agent work happens here.
 */
export async function handleCommentCommand(
  event: IntakeEvent,
  input: CommentCommandInput,
  deps: IntakeDependencies,
): Promise<IntakeDecision> {
  const { owner, repo } = input.source;
  const log = { delivery: event.id, owner, repo, number: input.number, requester: input.author.login };
  const request = deriveCommentRequest(
    {
      body: input.body,
      author: input.author,
      isPullRequest: input.isPullRequest,
      mode: input.mode ?? "active",
    },
    deps.appSlug,
  );
  if (request.kind === "nothing") return request.cause === "bot" ? "ignored-bot" : "no-mention";
  if (await deps.queue.hasDelivery(event.id)) {
    deps.logger.info(log, "redelivered webhook ignored");
    return "redelivery";
  }
  // "write" is the lowest level the config may set; the configured level is checked below.
  const authorization = await authorizeCommenter(event.octokit, {
    owner,
    repo,
    username: input.author.login,
    senderType: input.author.type,
    minimumPermission: "write",
    logger: deps.logger,
  });
  if (!authorization.authorized) {
    deps.logger.info(
      { ...log, reason: authorization.reason },
      "command from an unauthorized commenter ignored",
    );
    return "unauthorized";
  }
  const config = await readRepositoryConfig(event);
  if (!config.success) {
    await replyOnce(deps.queue, event.id, () =>
      postReply(event.octokit, input.source, explainConfigProblem(config), deps.redact),
    );
    deps.logger.warn({ ...log, problem: config.error.kind }, "repository config stops the command");
    return "config-invalid";
  }
  if (!meetsPermission(authorization.permission, config.value.trigger.min_permission)) {
    deps.logger.info(
      { ...log, required: config.value.trigger.min_permission },
      "commenter below the configured level",
    );
    return "unauthorized";
  }
  const answer = async (text: string): Promise<IntakeDecision> => {
    await replyOnce(deps.queue, event.id, () => postReply(event.octokit, input.source, text, deps.redact));
    return "answered";
  };
  const key = taskKeyOf({ owner, repo, number: input.number });
  switch (request.kind) {
    case "reply":
      return answer(request.text);
    case "stop": {
      const result = await deps.queue.cancel(key);
      const count = result.cancelledTaskIds.length;
      return answer(
        count === 0
          ? "There was nothing to stop here."
          : `Stopped: cancelled ${count} task${count === 1 ? "" : "s"}${result.wasRunning ? ", including the running one" : ""}.`,
      );
    }
    case "mode": {
      const target = { owner, repo, number: input.number };
      return answer(
        await applyModeCommand(event.octokit, target, request.command, request.current, `@${deps.appSlug}`),
      );
    }
    case "job":
      break;
  }
  const command = request.command;
  const spent = await findSpentBudget(deps, input.installationId);
  if (spent !== null) {
    deps.logger.info({ ...log, reason: spent.reason }, "budget spent: command answered, not run");
    await answer(renderBudgetComment(spent, new Date(deps.now())));
    return "budget-spent";
  }
  const task: GitHubRequest = {
    deliveryId: event.id,
    eventName: event.name,
    installationId: input.installationId,
    owner,
    repo,
    number: input.number,
    isPullRequest: input.isPullRequest,
    command,
    trigger: input.source.kind === "review-comment" ? "review-comment" : "comment",
    requester: input.author.login,
    commentId: input.source.commentId,
    headSha: input.headSha,
    beforeSha: null,
    reviewComment: input.reviewComment,
    receivedAt: deps.now(),
  };
  // A newer fix or request on a pull request supersedes the running one (supersede-rules.ts).
  const result = await deps.queue.enqueue({
    deliveryId: event.id,
    key,
    installationId: input.installationId,
    payload: task,
    ...supersedeRulesFor(task),
  });
  if (!result.accepted) return "duplicate";
  await tellReplacedRequest(event.octokit, deps, result.replacedTaskId, {
    requester: input.author.login,
    kind: command.kind,
  });
  deps.logger.info(
    { ...log, taskId: result.taskId, reason: result.reason, command: command.kind },
    "task enqueued",
  );
  // The task is durable already; a missing reaction must not fail the delivery into a retry.
  await deps.acknowledge(() => addEyesReaction(event.octokit, input.source));
  return "enqueued";
}
