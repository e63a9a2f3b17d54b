import { createServer, type Server } from "node:http";
import {
  handleHealthAndMetrics,
  type HealthAndMetricsOptions,
} from "../../observability/handle-health-and-metrics.js";
import type { DoorLogger } from "../github/github-logger.js";

/**
 * `/healthz` and `/metrics` alone, for `agentforge worker`: a worker takes no webhooks, but an
 * orchestrator still probes it and Prometheus still scrapes it.
 */
export function createHealthServer(
  options: HealthAndMetricsOptions & { readonly logger: DoorLogger },
): Server {
  return createServer({ requestTimeout: 10_000, headersTimeout: 5_000 }, (request, response) => {
    handleHealthAndMetrics(request, response, options)
      .then((isHandled) => {
        if (!isHandled) response.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
      })
      .catch((error: unknown) => {
        options.logger.error({ err: error }, "health request failed");
        if (!response.headersSent) response.writeHead(500).end();
        else response.end();
      });
  });
}
