import { createHmac } from "node:crypto";

export interface SignedWebhook {
  /** The App's webhook URL, e.g. `http://127.0.0.1:PORT/api/github/webhooks`. */
  readonly url: string;
  readonly secret: string;
  /** `X-GitHub-Event`, e.g. `issue_comment`. */
  readonly event: string;
  /** `X-GitHub-Delivery`; send the same id again to simulate a redelivery. */
  readonly deliveryId: string;
  readonly payload: unknown;
}

/** Posts a webhook signed as GitHub signs it (HMAC-SHA256 of the exact body). */
export async function sendSignedWebhook(
  webhook: SignedWebhook,
): Promise<{ status: number; body: string; elapsedMs: number }> {
  const body = JSON.stringify(webhook.payload);
  const signature = `sha256=${createHmac("sha256", webhook.secret).update(body).digest("hex")}`;
  const startedAt = performance.now();
  const response = await fetch(webhook.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-github-event": webhook.event,
      "x-github-delivery": webhook.deliveryId,
      "x-hub-signature-256": signature,
      "user-agent": "GitHub-Hookshot/stand-in",
    },
    body,
  });
  const text = await response.text();
  return { status: response.status, body: text, elapsedMs: performance.now() - startedAt };
}
