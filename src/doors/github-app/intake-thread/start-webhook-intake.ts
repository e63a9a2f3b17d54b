import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Worker } from "node:worker_threads";
import type { Probot } from "probot";
import type { HealthAndMetricsOptions } from "../../../observability/handle-health-and-metrics.js";
import type { JournaledDelivery } from "../../../queue/open-intake-journal.js";
import type { DoorLogger } from "../../github/github-logger.js";
import { createAcknowledger, type AgentForgeAppDependencies } from "../create-agent-forge-app.js";
import { createHealthServer } from "../create-health-server.js";
import { createIntakeTriage } from "../create-intake-triage.js";
import type { WebhookGuardOptions } from "../create-webhook-guard.js";
import { DEFAULT_WEBHOOK_PATH, describeWebhookRefusal } from "../create-webhook-server.js";
import type { IntakeDependencies } from "../intake-context.js";
import { toJournaledIntakeEvent } from "../to-journaled-intake-event.js";
import { createRedactor } from "../../../core/safety/index.js";
import type {
  IntakeThreadCommand,
  IntakeThreadEvent,
  IntakeThreadSettings,
} from "./intake-thread-messages.js";
import { IntakeThreadError } from "./intake-thread-error.js";
import { defuseTaskCommentMarkers } from "../task-comment-marker.js";

export interface WebhookIntakeOptions {
  /** Mints installation Octokits for triage and logs; its own webhook middleware is not used. */
  readonly probot: Probot;
  readonly secret: string;
  /** The intake journal's file; the intake thread alone opens it. */
  readonly journalPath: string;
  readonly host: string;
  /** 0 for any free port. */
  readonly port: number;
  readonly path?: string;
  readonly limits?: Pick<WebhookGuardOptions, "maxBodyBytes" | "maxDepth">;
  /** `/healthz` with the queue's state and `/metrics`; without it `/healthz` only says ok. */
  readonly healthAndMetrics?: HealthAndMetricsOptions;
  /** What triage needs, as `createAgentForgeApp` takes it (triage always follows the answer here). */
  readonly triage: Omit<AgentForgeAppDependencies, "journal" | "acknowledge">;
  /** Told once when the intake thread stops on its own (it should not): the process takes no webhooks. */
  readonly onFailed?: (error: IntakeThreadError) => void;
  /** The thread's entry module; the compiled `intake-thread-main.js` unless a test passes a fake. */
  readonly threadEntry?: URL;
}

export interface WebhookIntake {
  /** `http://host:port` of the webhook server. */
  readonly url: string;
  readonly port: number;
  /** Stops taking webhooks, lets answers under way end, closes the journal. */
  close(): Promise<void>;
}

/**
 * The compiled thread entry. From sources (jest, tsx) the thread runs its counterpart in build/,
 * which `npm run build` and jest's global setup keep current: Node runs no TypeScript.
 */
function intakeThreadEntry(): URL {
  const here = import.meta.url;
  if (!here.endsWith(".ts")) return new URL("./intake-thread-main.js", here);
  const index = here.lastIndexOf("/src/");
  return new URL("./intake-thread-main.js", `${here.slice(0, index)}/build/${here.slice(index + 5)}`);
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    );
  });
}

/**
 * Intake in two threads. The intake thread (`run-intake-thread.ts`) listens, verifies, admits,
 * journals and answers; this thread triages what it admitted (permission, config, budget, task or
 * reply, 👀) with Probot's Octokit and the queue, and settles each delivery back in the journal.
 * So triage's CPU and the task queue's synchronous commits never delay an answer, and the queue
 * and Octokit stay on one thread. `/healthz` and `/metrics` are passed from the intake thread to a
 * loopback server here, since the counters and the queue live here.
 */
export async function startWebhookIntake(options: WebhookIntakeOptions): Promise<WebhookIntake> {
  const { probot } = options;
  const logger: DoorLogger = options.triage.logger ?? probot.log;
  const metrics = options.triage.metrics;
  const redactor = options.triage.redact === undefined ? createRedactor() : null;
  const deps: IntakeDependencies = {
    queue: options.triage.queue,
    appSlug: options.triage.appSlug ?? "agentforge",
    // A reply may quote a person's text (a config key): no task marker in it may pass for the App's.
    redact: (text) =>
      defuseTaskCommentMarkers(
        options.triage.redact?.(text) ?? (redactor === null ? text : redactor.redact(text)),
      ),
    now: options.triage.now ?? Date.now,
    logger,
    ...(options.triage.budgets === undefined ? {} : { budgets: options.triage.budgets }),
    ...(metrics === undefined ? {} : { metrics }),
    acknowledge: createAcknowledger("background", logger),
  };
  let pending: readonly JournaledDelivery[] = [];
  const triage = createIntakeTriage({
    deps,
    toEvent: (delivery) => toJournaledIntakeEvent(probot, delivery),
    mode: "background",
    journal: {
      admit: () =>
        Promise.reject(new IntakeThreadError("INTAKE_THREAD_ONLY", "the intake thread admits deliveries")),
      settle: (id) => {
        command({ type: "settle-delivery", id });
        return Promise.resolve();
      },
      pending: () => pending,
    },
    ...(options.triage.onTriaged === undefined ? {} : { onTriaged: options.triage.onTriaged }),
  });

  const health =
    options.healthAndMetrics === undefined
      ? null
      : createHealthServer({ ...options.healthAndMetrics, logger });
  const healthUrl = health === null ? null : await listen(health);
  const settings: IntakeThreadSettings = {
    secret: options.secret,
    path: options.path ?? DEFAULT_WEBHOOK_PATH,
    host: options.host,
    port: options.port,
    appSlug: deps.appSlug,
    journalPath: options.journalPath,
    healthUrl,
    ...options.limits,
  };
  const worker = new Worker(options.threadEntry ?? intakeThreadEntry(), { workerData: settings });
  const command = (message: IntakeThreadCommand): void => worker.postMessage(message);
  let isClosing = false;
  let resolveClosed: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  let failure: IntakeThreadError | null = null;
  /** The first way the thread ended on its own wins: an uncaught error is followed by its exit. */
  const fail = (error: IntakeThreadError, reject: (error: Error) => void): void => {
    reject(error);
    if (isClosing || failure !== null) return;
    failure = error;
    logger.error({ err: error }, error.message);
    options.onFailed?.(error);
  };

  const ready = new Promise<number>((resolve, reject) => {
    worker.on("message", (event: IntakeThreadEvent) => {
      switch (event.type) {
        case "intake-ready":
          pending = event.pending;
          resolve(event.port);
          return;
        case "delivery-admitted":
          void triage.triageAdmitted(event.delivery);
          return;
        case "webhooks-recorded":
          for (const { event: name, result, count } of event.counts)
            metrics?.recordWebhook(name, result, count);
          return;
        case "webhook-refused": {
          const { refusal } = event;
          metrics?.recordRefusedDelivery(refusal.reason);
          logger.warn(
            {
              reason: refusal.reason,
              status: refusal.status,
              delivery: refusal.delivery,
              event: refusal.event,
            },
            describeWebhookRefusal(refusal),
          );
          return;
        }
        case "intake-log":
          logger[event.level](event.fields, event.message);
          return;
        case "intake-closed":
          resolveClosed();
          return;
      }
    });
    worker.once("error", (error) => {
      const message = `the webhook intake thread failed: ${error.message}`;
      fail(new IntakeThreadError("INTAKE_THREAD_FAILED", message, { cause: error }), reject);
    });
    worker.once("exit", (code) => {
      resolveClosed();
      // Even with code 0: only close() may end the thread.
      const message = `the webhook intake thread stopped (exit code ${code}); no webhooks are taken`;
      fail(new IntakeThreadError("INTAKE_THREAD_FAILED", message), reject);
    });
  });

  let port: number;
  try {
    port = await ready;
  } catch (error) {
    await worker.terminate();
    if (health !== null) await new Promise<void>((resolve) => health.close(() => resolve()));
    throw error;
  }
  // Answered before the last stop and never triaged: their answer said "accepted".
  void triage.resume();

  let closing: Promise<void> | null = null;
  return {
    url: `http://${options.host}:${port}`,
    port,
    close() {
      closing ??= (async () => {
        isClosing = true;
        command({ type: "close-intake" });
        await closed;
        await worker.terminate();
        if (health !== null) {
          health.closeAllConnections();
          await new Promise<void>((resolve) => health.close(() => resolve()));
        }
      })();
      return closing;
    },
  };
}
