import { createServer, type Server } from "node:http";
import type { ApplicationFunction, Probot } from "probot";
import {
  handleHealthAndMetrics,
  type HealthAndMetricsOptions,
} from "../../observability/handle-health-and-metrics.js";
import {
  createWebhookGuard,
  type WebhookGuardOptions,
  type WebhookRefusal,
  type WebhookRefusalReason,
} from "./create-webhook-guard.js";
import { receiveVerifiedDelivery } from "./receive-verified-delivery.js";

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

/** What an operator should do about each refusal; a bad signature is nearly always the secret. */
const REFUSAL_HINTS: Readonly<Record<WebhookRefusalReason, string>> = {
  "bad-signature":
    "the signature does not match WEBHOOK_SECRET: set WEBHOOK_SECRET to the webhook secret in the GitHub App's settings (or change the App's secret to match)",
  "missing-signature":
    "the request carries no X-Hub-Signature-256: give the GitHub App a webhook secret and set the same value in WEBHOOK_SECRET",
  "too-large": "larger than any GitHub webhook: not a delivery from GitHub",
  "too-deep": "nested deeper than any GitHub payload: not a delivery from GitHub",
  "invalid-json": "the body is not JSON: the App's webhook content type must be application/json",
  "not-an-object": "the body is not a JSON object: not a delivery from GitHub",
};

export function describeWebhookRefusal(refusal: WebhookRefusal): string {
  return `webhook refused (${refusal.status} ${refusal.reason}): ${REFUSAL_HINTS[refusal.reason]}`;
}

/**
 * A node:http server: health and metrics, the guard, then Probot's handlers, then 404. Probot's own
 * `Server` puts its middleware first, which would leave bodies unbounded; and its middleware would
 * check the signature and parse the JSON a second time, so the guard's parsed payload goes straight
 * to `probot.receive`.
 */
export async function createWebhookServer(options: WebhookServerOptions): Promise<Server> {
  const path = options.path ?? DEFAULT_WEBHOOK_PATH;
  const onRefused = (refusal: WebhookRefusal): void => {
    options.healthAndMetrics?.metrics.recordRefusedDelivery(refusal.reason);
    options.probot.log.warn(
      { reason: refusal.reason, status: refusal.status, delivery: refusal.delivery, event: refusal.event },
      describeWebhookRefusal(refusal),
    );
  };
  const guard = createWebhookGuard({ path, secret: options.secret, ...options.limits, onRefused });
  await options.probot.load(options.app);
  // Slow or stalled senders must not hold sockets open forever.
  const server = createServer({ requestTimeout: 30_000, headersTimeout: 10_000 }, (request, response) => {
    const handle = async (): Promise<void> => {
      if (options.healthAndMetrics !== undefined) {
        if (await handleHealthAndMetrics(request, response, options.healthAndMetrics)) return;
      } else if (request.method === "GET" && request.url === "/healthz") {
        response.writeHead(200, { "content-type": "text/plain" }).end("ok\n");
        return;
      }
      const guarded = await guard(request, response);
      if (guarded.kind === "answered") return;
      if (guarded.kind === "verified") {
        await receiveVerifiedDelivery(options.probot, request, response, guarded.payload);
        return;
      }
      if (!response.headersSent) response.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
    };
    handle().catch((error: unknown) => {
      options.probot.log.error({ err: error }, "webhook request failed");
      if (!response.headersSent) response.writeHead(500).end();
      else response.end();
    });
  });
  return server;
}
