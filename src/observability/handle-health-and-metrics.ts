import type { IncomingMessage, ServerResponse } from "node:http";
import type { QueueStats } from "../queue/task-queue.js";
import type { Metrics } from "./create-metrics.js";

export interface HealthAndMetricsOptions {
  readonly metrics: Metrics;
  readonly queue?: { stats(): Promise<QueueStats> };
}

/**
 * Answers `/healthz` and `/metrics`; returns false for any other path so the caller can route
 * it elsewhere. Health fails (503) when the queue cannot be read, since a server that cannot
 * record tasks should be taken out of rotation.
 */
export async function handleHealthAndMetrics(
  request: IncomingMessage,
  response: ServerResponse,
  options: HealthAndMetricsOptions,
): Promise<boolean> {
  const path = new URL(request.url ?? "/", "http://localhost").pathname;
  if (path !== "/healthz" && path !== "/metrics") return false;
  if (request.method !== "GET" && request.method !== "HEAD") {
    response.writeHead(405, { allow: "GET, HEAD", "content-type": "text/plain; charset=utf-8" });
    response.end("method not allowed\n");
    return true;
  }
  if (path === "/healthz") {
    let status = 200;
    let body: object;
    try {
      body = {
        status: "ok",
        tasks: options.metrics.countTasks(),
        ...(options.queue === undefined ? {} : { queue: await options.queue.stats() }),
      };
    } catch (error) {
      status = 503;
      body = { status: "error", error: error instanceof Error ? error.message : String(error) };
    }
    response.writeHead(status, {
      "content-type": "application/json; charset=utf-8",
      "cache-control": "no-store",
    });
    response.end(request.method === "HEAD" ? undefined : `${JSON.stringify(body)}\n`);
    return true;
  }
  try {
    const text = await options.metrics.registry.metrics();
    response.writeHead(200, {
      "content-type": options.metrics.registry.contentType,
      "cache-control": "no-store",
    });
    response.end(request.method === "HEAD" ? undefined : text);
  } catch (error) {
    response.writeHead(500, { "content-type": "text/plain; charset=utf-8" });
    response.end(`could not collect metrics: ${error instanceof Error ? error.message : String(error)}\n`);
  }
  return true;
}
