import type { Context, ProbotOctokit } from "probot";
import type { Metrics } from "../../observability/create-metrics.js";
import type { TaskQueue } from "../../queue/task-queue.js";
import type { InstallationBudgets } from "./budgets/create-installation-budgets.js";
import type { GitHubRequest } from "./github-request.js";
import type { DoorLogger } from "../github/github-logger.js";

/** The parts of a Probot context intake uses; small enough to build in a test. */
export interface IntakeEvent {
  /** The delivery id (`X-GitHub-Delivery`); GitHub reuses it when it redelivers. */
  readonly id: string;
  /** With the action, e.g. `issue_comment.created`. */
  readonly name: string;
  readonly payload: unknown;
  readonly octokit: ProbotOctokit;
  readonly config: Context["config"];
}

export interface IntakeDependencies {
  readonly queue: TaskQueue<GitHubRequest>;
  readonly appSlug: string;
  readonly redact: (text: string) => string;
  readonly now: () => number;
  readonly logger: DoorLogger;
  /** When set, a spent daily budget is answered with a comment instead of a task. */
  readonly budgets?: InstallationBudgets;
  /** When set, each delivery is counted by event and result. */
  readonly metrics?: Metrics;
  /** Runs the 👀 acknowledgement: in the background in production, awaited in tests. */
  readonly acknowledge: (work: () => Promise<void>) => Promise<void>;
}

export function toIntakeEvent(context: Context): IntakeEvent {
  return {
    id: context.id,
    name: fullEventName(context.name, context.payload),
    payload: context.payload,
    octokit: context.octokit,
    config: (fileName, defaultConfig, deepMergeOptions) =>
      context.config(fileName, defaultConfig, deepMergeOptions),
  };
}

/** `issue_comment` with a payload whose action is `created` is `issue_comment.created`. */
export function fullEventName(name: string, payload: unknown): string {
  if (
    typeof payload === "object" &&
    payload !== null &&
    "action" in payload &&
    typeof payload.action === "string"
  ) {
    return `${name}.${payload.action}`;
  }
  return name;
}
