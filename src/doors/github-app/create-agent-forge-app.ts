import type { ApplicationFunction, Probot } from "probot";
import { createRedactor } from "../../core/safety/index.js";
import type { Metrics } from "../../observability/create-metrics.js";
import {
  toPayloadJson,
  type IntakeJournal,
  type JournaledDelivery,
} from "../../queue/open-intake-journal.js";
import type { TaskQueue } from "../../queue/task-queue.js";
import type { InstallationBudgets } from "./budgets/create-installation-budgets.js";
import type { GitHubRequest } from "./github-request.js";
import type { DoorLogger } from "../github/github-logger.js";
import { admitDelivery } from "./admit-delivery.js";
import { createIntakeTriage, type TriageOutcome } from "./create-intake-triage.js";
import { toIntakeEvent, type IntakeDependencies } from "./intake-context.js";
import { toJournaledIntakeEvent } from "./to-journaled-intake-event.js";
import { toWebhookResult } from "./to-webhook-result.js";
import { INTAKE_EVENTS, isIntakeEventName } from "./triage-delivery.js";
import { defuseTaskCommentMarkers } from "./task-comment-marker.js";

export interface AgentForgeAppDependencies {
  readonly queue: TaskQueue<GitHubRequest>;
  /** Where admitted deliveries are recorded before the webhook is answered (group commit). */
  readonly journal: IntakeJournal;
  /** The app's login without `[bot]`; the mention users type. */
  readonly appSlug?: string;
  /** Applied to everything intake posts. Defaults to the pattern-based redactor. */
  readonly redact?: (text: string) => string;
  readonly now?: () => number;
  readonly logger?: DoorLogger;
  /** Daily budgets per installation, checked before a task is enqueued. */
  readonly budgets?: InstallationBudgets;
  readonly metrics?: Metrics;
  /**
   * `background` (default): triage (permission, config, budget, enqueue or reply) and the 👀
   * reaction run after the webhook is answered. `await`: both before it, for tests that read
   * the queue right after `probot.receive`.
   */
  readonly acknowledge?: "background" | "await";
  /** Called when a delivery's triage ends (tests synchronise on it). */
  readonly onTriaged?: (deliveryId: string, outcome: TriageOutcome) => void;
}

/** A reply may quote a person's text (a config key): no task marker in it may pass for the App's. */
const withDefusedMarkers =
  (redact: (text: string) => string) =>
  (text: string): string =>
    defuseTaskCommentMarkers(redact(text));

/**
 * The Probot app: intake only, in two steps. Before the answer, admission (`admitDelivery`)
 * decides from the payload alone, and a delivery that may be a command is written to the intake
 * journal; the answer waits for nothing else, never for GitHub. After the answer, triage
 * (`triageDelivery`) asks GitHub and the budgets, then enqueues a task or replies; the work
 * itself runs in a worker (see `runGitHubTaskWorkers`). Unsettled deliveries are triaged again
 * when the app loads, so an answered command survives a crash.
 */
function defaultRedact(): (text: string) => string {
  const redactor = createRedactor();
  return (text) => redactor.redact(text);
}

/**
 * The reaction is a write, and Probot's write throttle spaces writes about a second apart per
 * process: awaited, a burst of comments would hold triage for seconds. The task is already
 * durable, so by default the acknowledgement goes out in the background; either way a failed
 * reaction is logged, never turned into a failed delivery.
 */
export function createAcknowledger(
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
    const mode = dependencies.acknowledge ?? "background";
    const logger = dependencies.logger ?? app.log;
    const deps: IntakeDependencies = {
      queue: dependencies.queue,
      appSlug: dependencies.appSlug ?? "agentforge",
      redact: withDefusedMarkers(dependencies.redact ?? defaultRedact()),
      now: dependencies.now ?? Date.now,
      logger,
      ...(dependencies.budgets === undefined ? {} : { budgets: dependencies.budgets }),
      ...(dependencies.metrics === undefined ? {} : { metrics: dependencies.metrics }),
      acknowledge: createAcknowledger(mode, logger),
    };
    const metrics = dependencies.metrics;
    const triage = createIntakeTriage({
      journal: dependencies.journal,
      deps,
      toEvent: (delivery) => toJournaledIntakeEvent(app, delivery),
      mode,
      ...(dependencies.onTriaged === undefined ? {} : { onTriaged: dependencies.onTriaged }),
    });

    app.on([...INTAKE_EVENTS], async (context) => {
      const event = toIntakeEvent(context);
      const name = event.name;
      if (!isIntakeEventName(name)) return;
      let admission;
      try {
        admission = admitDelivery({ ...event, name }, deps.appSlug);
      } catch (error) {
        metrics?.recordWebhook(name, "error");
        throw error;
      }
      if (!admission.needsTriage) {
        metrics?.recordWebhook(name, toWebhookResult(admission.decision));
        return;
      }
      const delivery: JournaledDelivery = {
        id: context.id,
        name: context.name,
        payloadJson: toPayloadJson(context.payload),
        receivedAt: deps.now(),
      };
      if (!(await triage.accept(event, delivery))) {
        logger.info({ delivery: context.id, event: name }, "redelivered webhook ignored");
        metrics?.recordWebhook(name, "duplicate");
      }
    });

    // Deliveries answered before the last stop and never triaged: their answer said "accepted".
    void triage.resume();
  };
}
