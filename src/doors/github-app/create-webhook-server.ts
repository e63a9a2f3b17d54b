import { createServer, type Server } from "node:http";
import { createNodeMiddleware, type ApplicationFunction, type Probot } from "probot";
import {
  handleHealthAndMetrics,
  type HealthAndMetricsOptions,
} from "../../observability/handle-health-and-metrics.js";
import { createWebhookGuard, type WebhookGuardOptions } from "./create-webhook-guard.js";

export const DEFAULT_WEBHOOK_PATH = "/api/github/webhooks";

export interface WebhookServerOptions {
  readonly probot: Probot;
  readonly app: ApplicationFunction;
  /** The webhook secret; the guard checks signatures before parsing anything. */
  readonly secret: string;
  readonly path?: string;
  readonly limits?: Pick<WebhookGuardOptions, "maxBodyBytes" | "maxDepth">;
  /** `/healthz` with the queue's state and `/metrics`; without it `/healthz` only says ok. */
  readonly healthAndMetrics?: HealthAndMetricsOptions;
}

/**
 * A node:http server: health and metrics, the guard, then Probot's webhook middleware, then 404. Probot's own
 * `Server` puts its middleware first, which would leave bodies unbounded.
 */
export async function createWebhookServer(options: WebhookServerOptions): Promise<Server> {
  const path = options.path ?? DEFAULT_WEBHOOK_PATH;
  const guard = createWebhookGuard({ path, secret: options.secret, ...options.limits });
  const middleware = await createNodeMiddleware(options.app, { probot: options.probot, webhooksPath: path });
  // Slow or stalled senders must not hold sockets open forever.
  const server = createServer({ requestTimeout: 30_000, headersTimeout: 10_000 }, (request, response) => {
    const handle = async (): Promise<void> => {
      if (options.healthAndMetrics !== undefined) {
        if (await handleHealthAndMetrics(request, response, options.healthAndMetrics)) return;
      } else if (request.method === "GET" && request.url === "/healthz") {
        response.writeHead(200, { "content-type": "text/plain" }).end("ok\n");
        return;
      }
      if (await guard(request, response)) return;
      const handled = await middleware(request, response);
      if (!handled && !response.headersSent)
        response.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
    };
    handle().catch((error: unknown) => {
      options.probot.log.error({ err: error }, "webhook request failed");
      if (!response.headersSent) response.writeHead(500).end();
      else response.end();
    });
  });
  return server;
}
