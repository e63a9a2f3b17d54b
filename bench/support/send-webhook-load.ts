import { Agent, request as httpRequest } from "node:http";
import { summarizeSamples, type SampleSummary } from "./summarize-samples.js";

export interface SignedDelivery {
  readonly body: Buffer;
  readonly headers: Readonly<Record<string, string>>;
}

export interface LoadResult {
  readonly latency: SampleSummary;
  readonly requestsPerSecond: number;
  readonly elapsedMs: number;
  /** Responses by status code; anything but 200 means the figure is not what it claims. */
  readonly statuses: Readonly<Record<number, number>>;
  /** True when the deadline stopped the run before every delivery was sent. */
  readonly isCutShort: boolean;
}

export interface LoadOptions {
  readonly url: string;
  readonly deliveries: readonly SignedDelivery[];
  readonly concurrency: number;
  /** No new request starts after this; the run stays bounded on a slow or stuck server. */
  readonly deadlineMs: number;
}

/** One POST; resolves with the status once the whole answer has arrived. */
export function post(url: URL, agent: Agent, delivery: SignedDelivery): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      url,
      {
        method: "POST",
        agent,
        headers: { ...delivery.headers, "content-length": String(delivery.body.length) },
        timeout: 30_000,
      },
      (response) => {
        response.resume();
        response.on("end", () => resolve(response.statusCode ?? 0));
        response.on("error", reject);
      },
    );
    outgoing.on("timeout", () => outgoing.destroy(new Error("webhook request timed out")));
    outgoing.on("error", reject);
    outgoing.end(delivery.body);
  });
}

/**
 * Sends the deliveries with `concurrency` requests in flight over keep-alive connections and
 * times each from first byte sent to last byte of the answer: the acknowledgement GitHub waits for.
 */
export async function sendWebhookLoad(options: LoadOptions): Promise<LoadResult> {
  const url = new URL(options.url);
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency });
  const samples: number[] = [];
  const statuses: Record<number, number> = {};
  let next = 0;
  let isCutShort = false;
  const started = performance.now();
  const worker = async (): Promise<void> => {
    while (next < options.deliveries.length) {
      if (performance.now() - started > options.deadlineMs) {
        isCutShort = true;
        return;
      }
      const delivery = options.deliveries[next];
      next += 1;
      if (delivery === undefined) return;
      const sent = performance.now();
      const status = await post(url, agent, delivery);
      samples.push(performance.now() - sent);
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
  };
  try {
    await Promise.all(Array.from({ length: options.concurrency }, worker));
  } finally {
    agent.destroy();
  }
  const elapsedMs = performance.now() - started;
  return {
    latency: summarizeSamples(samples),
    requestsPerSecond: (samples.length / elapsedMs) * 1000,
    elapsedMs,
    statuses,
    isCutShort,
  };
}
