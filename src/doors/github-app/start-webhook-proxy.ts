import type { DoorLogger } from "../github/github-logger.js";

export interface WebhookProxy {
  stop(): Promise<void>;
}

/**
 * Forwards the WEBHOOK_PROXY_URL channel (smee) to this server's webhook path, so a server on a
 * laptop receives GitHub's webhooks. Deliveries arrive signed as GitHub sent them: the guard
 * checks them like any other. Resolves once the channel is open; rejects if it cannot be opened.
 */
export async function startWebhookProxy(options: {
  readonly source: string;
  readonly target: string;
  readonly logger: DoorLogger;
  readonly timeoutMs?: number;
}): Promise<WebhookProxy> {
  const { logger } = options;
  // Loaded only when WEBHOOK_PROXY_URL is set: smee and its event source cost a server without it memory.
  const { SmeeClient } = await import("smee-client");
  const client = new SmeeClient({
    source: options.source,
    target: options.target,
    maxConnectionTimeout: options.timeoutMs ?? 10_000,
    logger: {
      info: (message: unknown) => logger.info({ proxy: options.source }, String(message)),
      error: (message: unknown, error?: unknown) =>
        logger.warn({ proxy: options.source, err: error }, String(message)),
    },
  });
  try {
    await client.start();
  } catch (error) {
    // The event source would otherwise keep reconnecting to a channel that was refused.
    await client.stop();
    throw error;
  }
  return { stop: () => client.stop() };
}
