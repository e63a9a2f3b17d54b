import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { LoopEvent } from "../core/loop/index.js";
import { TASK_STATES, type QueueStats } from "../queue/task-queue.js";

/**
 * What became of a task attempt: `completed` only when the job did what was asked (a job that
 * reported failure is `failed`), `refused` when it was not run (the installation's budget).
 */
export const TASK_OUTCOMES = [
  "completed",
  "failed",
  "refused",
  "retried",
  "cancelled",
  "superseded",
  "lease-lost",
] as const;
export type TaskOutcome = (typeof TASK_OUTCOMES)[number];
export type WebhookResult = "accepted" | "duplicate" | "ignored" | "refused" | "invalid" | "error";

export interface MetricsOptions {
  /** Read at each scrape for the queue depth gauge. */
  readonly queue?: { stats(): Promise<QueueStats> };
  /** Node's process metrics (memory, event loop lag, handles). */
  readonly withProcessMetrics?: boolean;
  readonly prefix?: string;
}

export interface Metrics {
  readonly registry: Registry;
  recordTask(outcome: TaskOutcome, durationMs: number): void;
  /** Task attempts by outcome since this process started (what `/healthz` reports). */
  countTasks(): Readonly<Record<TaskOutcome, number>>;
  recordTokens(usage: { readonly promptTokens: number; readonly completionTokens: number }): void;
  recordCost(costUsd: number): void;
  recordRefusal(tool: string, reason: string): void;
  /** `count` deliveries of one event with one result (default 1). */
  recordWebhook(event: string, result: WebhookResult, count?: number): void;
  /** A delivery the webhook guard refused before parsing it (bad signature, too large...). */
  recordRefusedDelivery(reason: string): void;
  /** Feeds the counters from a run's loop events (tokens, cost, refusals). */
  observeLoopEvent(event: LoopEvent): void;
}

/** Tasks take seconds to tens of minutes. */
const TASK_DURATION_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 1200, 2400, 3600];
const SAFE_LABEL = /^[A-Za-z0-9_.:-]{1,64}$/;

/**
 * Label values must come from small sets or Prometheus drowns: a value that does not look like
 * a name (a tool the model invented, a free-text reason) is counted as "other".
 */
export function boundLabel(value: string): string {
  return SAFE_LABEL.test(value) ? value : "other";
}

export function createMetrics(options: MetricsOptions = {}): Metrics {
  const prefix = options.prefix ?? "agentforge_";
  const registry = new Registry();
  if (options.withProcessMetrics === true) collectDefaultMetrics({ register: registry, prefix });
  const queue = options.queue;

  new Gauge({
    name: `${prefix}queue_tasks`,
    help: "Tasks in the queue by state (finished states count all kept records).",
    labelNames: ["state"],
    registers: [registry],
    async collect() {
      if (queue === undefined) return;
      const stats = await queue.stats();
      for (const state of TASK_STATES) this.set({ state }, stats[state]);
    },
  });
  const taskDuration = new Histogram({
    name: `${prefix}task_duration_seconds`,
    help: "Wall time of one task attempt, by outcome.",
    labelNames: ["outcome"],
    buckets: TASK_DURATION_BUCKETS,
    registers: [registry],
  });
  const taskOutcomes = new Counter({
    name: `${prefix}task_outcomes_total`,
    help: "Task attempts by outcome.",
    labelNames: ["outcome"],
    registers: [registry],
  });
  const tokens = new Counter({
    name: `${prefix}model_tokens_total`,
    help: "Model tokens, prompt and completion.",
    labelNames: ["kind"],
    registers: [registry],
  });
  const cost = new Counter({
    name: `${prefix}model_cost_usd_total`,
    help: "Model cost in US dollars, from the configured prices.",
    registers: [registry],
  });
  const refusals = new Counter({
    name: `${prefix}tool_refusals_total`,
    help: "Tool calls the harness refused, by tool and error type.",
    labelNames: ["tool", "reason"],
    registers: [registry],
  });
  const webhooks = new Counter({
    name: `${prefix}webhook_deliveries_total`,
    help: "Webhook deliveries by event and what became of them.",
    labelNames: ["event", "result"],
    registers: [registry],
  });

  const refusedDeliveries = new Counter({
    name: `${prefix}webhook_refused_total`,
    help: "Webhook requests refused before parsing, by reason (bad-signature: check WEBHOOK_SECRET).",
    labelNames: ["reason"],
    registers: [registry],
  });

  const taskCounts = Object.fromEntries(TASK_OUTCOMES.map((outcome) => [outcome, 0])) as Record<
    TaskOutcome,
    number
  >;
  // Every outcome is exported from the first scrape, so a rate over `failed` exists before the first failure.
  for (const outcome of TASK_OUTCOMES) taskOutcomes.inc({ outcome }, 0);

  const metrics: Metrics = {
    registry,
    recordTask(outcome, durationMs) {
      taskCounts[outcome] += 1;
      taskOutcomes.inc({ outcome });
      taskDuration.observe({ outcome }, Math.max(0, durationMs) / 1000);
    },
    countTasks() {
      return { ...taskCounts };
    },
    recordTokens(usage) {
      if (usage.promptTokens > 0) tokens.inc({ kind: "prompt" }, usage.promptTokens);
      if (usage.completionTokens > 0) tokens.inc({ kind: "completion" }, usage.completionTokens);
    },
    recordCost(costUsd) {
      if (costUsd > 0) cost.inc(costUsd);
    },
    recordRefusal(tool, reason) {
      refusals.inc({ tool: boundLabel(tool), reason: boundLabel(reason) });
    },
    recordWebhook(event, result, count = 1) {
      webhooks.inc({ event: boundLabel(event), result }, count);
    },
    recordRefusedDelivery(reason) {
      refusedDeliveries.inc({ reason: boundLabel(reason) });
    },
    observeLoopEvent(event) {
      if (event.type === "model-call-end") {
        metrics.recordTokens(event.usage);
        if (event.costUsd !== null) metrics.recordCost(event.costUsd);
      } else if (event.type === "tool-call-end" && event.result.status === "refused") {
        // The refused call's result carries a typed error; the refusal event only free text.
        const reason = event.result.error?.error_type ?? "refused";
        // An unknown tool's name is whatever the model wrote: keep it out of the labels.
        metrics.recordRefusal(reason === "TOOL_NOT_FOUND" ? "unknown" : event.name, reason);
      }
    },
  };
  return metrics;
}
