import type { ApplicationFunction, Context, Probot } from "probot";
import { createRedactor } from "../../core/safety/index.js";
import { readConversationMode } from "../github/commands/conversation-mode.js";
import type { Metrics } from "../../observability/create-metrics.js";
import type { TaskQueue } from "../../queue/task-queue.js";
import type { InstallationBudgets } from "./budgets/create-installation-budgets.js";
import type { GitHubRequest } from "./github-request.js";
import type { DoorLogger } from "../github/github-logger.js";
import { handleCommentCommand } from "./handle-comment-command.js";
import { handleEventTrigger } from "./handle-event-trigger.js";
import { handleIssueLabeled } from "./handle-issue-labeled.js";
import { handlePullRequestEvent } from "./handle-pull-request-event.js";
import { toIntakeEvent, type IntakeDependencies } from "./intake-context.js";
import { toWebhookResult, type AnyIntakeDecision } from "./to-webhook-result.js";
import {
  issueCommentPayloadSchema,
  parseWebhookPayload,
  reviewCommentPayloadSchema,
} from "./webhook-payloads.js";

export interface AgentForgeAppDependencies {
  readonly queue: TaskQueue<GitHubRequest>;
  /** The app's login without `[bot]`; the mention users type. */
  readonly appSlug?: string;
  /** Applied to everything intake posts. Defaults to the pattern-based redactor. */
  readonly redact?: (text: string) => string;
  readonly now?: () => number;
  readonly logger?: DoorLogger;
  /** Daily budgets per installation, checked before a task is enqueued. */
  readonly budgets?: InstallationBudgets;
  readonly metrics?: Metrics;
  /** `background` (default): the 👀 reaction goes out after the webhook is answered. */
  readonly acknowledge?: "background" | "await";
}

/**
 * The Probot app: intake only. Each handler checks, records a durable task and acknowledges;
 * the work itself runs in a worker (see `runGitHubTaskWorkers`), after the webhook is answered.
 */
function defaultRedact(): (text: string) => string {
  const redactor = createRedactor();
  return (text) => redactor.redact(text);
}

/**
 * The reaction is a write, and Probot's write throttle spaces writes about a second apart per
 * process: awaited, a burst of comments would hold the webhook answers for seconds. The task is
 * already durable, so by default the acknowledgement goes out after the answer; either way a
 * failed reaction is logged, never turned into a failed delivery.
 */
function createAcknowledger(
  mode: "background" | "await",
  logger: DoorLogger,
): (work: () => Promise<void>) => Promise<void> {
  const attempt = (work: () => Promise<void>): Promise<void> =>
    work().catch((error: unknown) =>
      logger.warn({ err: error }, "could not add the acknowledgement reaction"),
    );
  return mode === "await" ? attempt : (work) => (void attempt(work), Promise.resolve());
}

export function createAgentForgeApp(dependencies: AgentForgeAppDependencies): ApplicationFunction {
  return (app: Probot) => {
    const deps: IntakeDependencies = {
      queue: dependencies.queue,
      appSlug: dependencies.appSlug ?? "agentforge",
      redact: dependencies.redact ?? defaultRedact(),
      now: dependencies.now ?? Date.now,
      logger: dependencies.logger ?? app.log,
      ...(dependencies.budgets === undefined ? {} : { budgets: dependencies.budgets }),
      ...(dependencies.metrics === undefined ? {} : { metrics: dependencies.metrics }),
      acknowledge: createAcknowledger(
        dependencies.acknowledge ?? "background",
        dependencies.logger ?? app.log,
      ),
    };
    const metrics = dependencies.metrics;
    /** Counts the delivery by event and what became of it; a thrown error counts as `error`. */
    const counted = async (eventName: string, handle: () => Promise<AnyIntakeDecision>): Promise<void> => {
      try {
        // Awaited apart: `metrics?.record(…, await handle())` would skip the handler without metrics.
        const decision = await handle();
        metrics?.recordWebhook(eventName, toWebhookResult(decision));
      } catch (error) {
        metrics?.recordWebhook(eventName, "error");
        throw error;
      }
    };

    app.on("issue_comment.created", async (context: Context<"issue_comment.created">) => {
      const event = toIntakeEvent(context);
      await counted(event.name, () => {
        const payload = parseWebhookPayload(issueCommentPayloadSchema, event.name, event.payload);
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
      });
    });

    app.on(
      "pull_request_review_comment.created",
      async (context: Context<"pull_request_review_comment.created">) => {
        const event = toIntakeEvent(context);
        await counted(event.name, () => {
          const payload = parseWebhookPayload(reviewCommentPayloadSchema, event.name, event.payload);
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
        });
      },
    );

    app.on(
      ["pull_request.opened", "pull_request.ready_for_review", "pull_request.synchronize"],
      async (context) => {
        const event = toIntakeEvent(context);
        await counted(event.name, () => handlePullRequestEvent(event, deps));
      },
    );

    app.on("issues.labeled", async (context) => {
      const event = toIntakeEvent(context);
      await counted(event.name, () => handleIssueLabeled(event, deps));
    });

    app.on(["issues.assigned", "pull_request.review_requested"], async (context) => {
      const event = toIntakeEvent(context);
      await counted(event.name, () => handleEventTrigger(event, deps));
    });
  };
}
