import { Agent } from "node:http";
import { post, type SignedDelivery } from "./send-webhook-load.js";
import { summarizeSamples, type SampleSummary } from "./summarize-samples.js";

export interface OpenLoopOptions {
  readonly url: string;
  readonly deliveries: readonly SignedDelivery[];
  /** Arrivals per second, kept whatever the server does: a slow answer does not slow the sender. */
  readonly ratePerSecond: number;
}

export interface OpenLoopResult {
  /** From each delivery's scheduled send time to the last byte of its answer. */
  readonly latency: SampleSummary;
  readonly statuses: Readonly<Record<number, number>>;
  /** Requests that failed without an answer (reset, timeout). */
  readonly errors: number;
  /** Deliveries answered per second over the whole run. */
  readonly answeredPerSecond: number;
  readonly elapsedMs: number;
}

/**
 * An open-loop load generator: delivery i is due at start + i / rate, sent when due however many
 * are still unanswered, and timed from when it was due (so a stalled sender cannot hide a slow
 * server: no coordinated omission). Connections are kept alive and opened as needed.
 */
export function sendOpenLoopLoad(options: OpenLoopOptions): Promise<OpenLoopResult> {
  const url = new URL(options.url);
  const agent = new Agent({ keepAlive: true, maxSockets: 1024 });
  const intervalMs = 1000 / options.ratePerSecond;
  const samples: number[] = [];
  const statuses: Record<number, number> = {};
  let errors = 0;
  let next = 0;
  let settled = 0;
  const started = performance.now();
  return new Promise((resolve) => {
    const finishIfDone = (): void => {
      if (settled < options.deliveries.length) return;
      agent.destroy();
      const elapsedMs = performance.now() - started;
      resolve({
        latency: summarizeSamples(samples),
        statuses,
        errors,
        answeredPerSecond: (samples.length / elapsedMs) * 1000,
        elapsedMs,
      });
    };
    const tick = (): void => {
      const now = performance.now();
      while (next < options.deliveries.length && started + next * intervalMs <= now) {
        const due = started + next * intervalMs;
        const delivery = options.deliveries[next];
        next += 1;
        if (delivery === undefined) continue;
        post(url, agent, delivery)
          .then((status) => {
            samples.push(performance.now() - due);
            statuses[status] = (statuses[status] ?? 0) + 1;
          })
          .catch(() => {
            errors += 1;
          })
          .finally(() => {
            settled += 1;
            finishIfDone();
          });
      }
      if (next < options.deliveries.length)
        setTimeout(tick, Math.max(0, started + next * intervalMs - performance.now()));
    };
    tick();
  });
}
