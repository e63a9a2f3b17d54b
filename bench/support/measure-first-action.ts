import { randomUUID } from "node:crypto";
import type { BenchRow } from "../bench-types.js";
import { readLogRecords, type LogRecord } from "../../test/e2e/github-app/app-processes.js";
import { REDIS_URL, removeKeys } from "../../test/queue/bullmq/redis-test-helpers.js";
import { startAppStand } from "./start-app-stand.js";
import { summarizeSamples } from "./summarize-samples.js";

/** At least five measured rounds: the median and the range of fewer say little on a shared machine. */
const ROUNDS = Math.max(5, Number(process.env.AGENTFORGE_BENCH_FIRST_ACTION_ROUNDS ?? "5"));

const STEPS = ["intake", "triage", "claim", "before checkout", "checkout", "setup", "session start"] as const;
type Step = (typeof STEPS)[number];

function timeOf(records: readonly LogRecord[], message: string, taskId: string): number {
  const record = records.find((candidate) => candidate.msg === message && candidate.taskId === taskId);
  if (record === undefined || typeof record["time"] !== "number") throw new Error(`no "${message}" log line`);
  return record["time"];
}

/** "range 1,100–1,400 ms": the smallest and the largest sample (the row's value is the median). */
function describeSpread(samples: readonly number[]): string {
  const summary = summarizeSamples(samples);
  const format = (value: number) => Math.round(value).toLocaleString("en-US");
  return `range ${format(summary.min)}–${format(summary.max)} ms`;
}

/**
 * Time to first action of `agentforge serve` on a warm repository: from a signed
 * `@agentforge fix this` to the model's first request, split by the timestamps the App logs (task
 * enqueued, task claimed, workspace ready with its checkout time, setup finished) and the model
 * server's receipt. "before checkout" is what the worker does between its claim and the
 * checkout's start that the checkout waits for; work done beside the checkout is not in it. On
 * the embedded queue serve runs the task; on Redis serve enqueues it and one `agentforge worker`
 * process, idle until then, claims it (its log gives the steps after the enqueue).
 */
export async function measureFirstAction(engine: "sqlite" | "redis" = "sqlite"): Promise<BenchRow[]> {
  const prefix = `agentforge-bench-fa-${randomUUID()}`;
  const where = engine === "sqlite" ? "serve on SQLite" : "serve and one worker on Redis";
  const stand = await startAppStand({
    modelLatencyMs: 1000,
    tasksPerWorker: 2,
    logLevel: "info",
    ...(engine === "redis" ? { redis: { url: REDIS_URL, prefix, workers: 1 } } : {}),
  });
  try {
    const samples = new Map<Step | "total", number[]>();
    for (let round = 0; round <= ROUNDS; round += 1) {
      const before = stand.chatRequests().length;
      const sentWall = Date.now();
      const sent = await stand.sendFix(`first-action-${round}`);
      const answeredWall = sentWall + (sent.answeredAt - sent.sentAt);
      while (!stand.isFixDone(sent.issue)) await new Promise((resolve) => setTimeout(resolve, 20));
      // Round 0 makes the repository warm (the mirror exists): it is not a sample.
      if (round === 0) continue;
      // serve logs the enqueue; on Redis the worker logs the rest (on SQLite serve is the runner).
      const records = [...new Set([stand.serve, ...stand.runners])].flatMap(readLogRecords);
      const enqueued = records.find(
        (record) => record.msg === "task enqueued" && record["delivery"] === sent.deliveryId,
      );
      if (enqueued?.taskId === undefined || typeof enqueued["time"] !== "number")
        throw new Error("no task enqueued log line");
      const taskId = enqueued.taskId;
      const ready = records.find((record) => record.msg === "workspace ready" && record.taskId === taskId);
      const checkoutMs = typeof ready?.["checkoutMs"] === "number" ? ready["checkoutMs"] : 0;
      const readyAt = timeOf(records, "workspace ready", taskId);
      const firstModel = stand.chatRequests()[before];
      if (firstModel === undefined) throw new Error("the model was not asked");
      const marks: Record<Step, number> = {
        intake: answeredWall - sentWall,
        triage: enqueued["time"] - answeredWall,
        claim: timeOf(records, "task claimed", taskId) - enqueued["time"],
        "before checkout": readyAt - checkoutMs - timeOf(records, "task claimed", taskId),
        checkout: checkoutMs,
        setup: timeOf(records, "setup finished", taskId) - readyAt,
        "session start": firstModel.receivedAt - timeOf(records, "setup finished", taskId),
      };
      for (const step of STEPS) samples.set(step, [...(samples.get(step) ?? []), marks[step]]);
      samples.set("total", [...(samples.get("total") ?? []), firstModel.receivedAt - sentWall]);
    }
    const samplesOf = (step: Step | "total"): readonly number[] => samples.get(step) ?? [];
    const median = (step: Step | "total"): number => summarizeSamples(samplesOf(step)).median;
    const overCheckout = median("total") - median("checkout");
    return [
      ...STEPS.map((step): BenchRow => ({
        benchmark: "first-action",
        case: `${step} (median of ${ROUNDS}, ${describeSpread(samplesOf(step))}; warm repository, ${where})`,
        value: Math.round(median(step)),
        unit: "ms",
      })),
      {
        benchmark: "first-action",
        case: `signed comment → first model request, ${where} (median of ${ROUNDS}, ${describeSpread(samplesOf("total"))})`,
        value: Math.round(median("total")),
        unit: "ms",
        baseline: Math.round(median("checkout")),
        baselineLabel: "checkout",
        target: "≤ checkout + 500 ms",
        targetMet: overCheckout <= 500,
      },
      {
        benchmark: "first-action",
        case: `over the checkout, ${where} (median total − median checkout, ${ROUNDS} rounds)`,
        value: Math.round(overCheckout),
        unit: "ms",
        target: "≤ 500 ms",
        targetMet: overCheckout <= 500,
      },
    ];
  } finally {
    await stand.stop();
    if (engine === "redis") await removeKeys(prefix);
  }
}
