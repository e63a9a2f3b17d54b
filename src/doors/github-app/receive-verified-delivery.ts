import type { IncomingMessage, ServerResponse } from "node:http";
import type { Probot } from "probot";
import {
  readDeliveryHeaders,
  sendWebhookAnswer,
  sendWebhookProblem,
  toWebhookProblem,
} from "./read-delivery-headers.js";

/** GitHub gives up on a delivery after 10 s; past this the sender is told the work goes on. */
export const DEFAULT_HANDLER_TIMEOUT_MS = 9_000;

/**
 * Hands a delivery the guard has verified and parsed to Probot's handlers (`probot.receive`) and
 * answers once they resolve: the answers @octokit/webhooks' middleware gives (415, 400 for missing
 * headers, 200 `ok`, a handler error's status, 202 past the timeout), without its second
 * signature check and second JSON parse of the same body.
 */
export async function receiveVerifiedDelivery(
  probot: Probot,
  request: IncomingMessage,
  response: ServerResponse,
  payload: Readonly<Record<string, unknown>>,
  timeoutMs = DEFAULT_HANDLER_TIMEOUT_MS,
): Promise<void> {
  const headers = readDeliveryHeaders(request);
  if (!headers.success) {
    sendWebhookProblem(response, headers.error);
    return;
  }
  const { id, name } = headers.value;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
  });
  try {
    const handled = probot.receive({ id, name, payload } as Parameters<Probot["receive"]>[0]);
    if ((await Promise.race([handled.then(() => "done" as const), timedOut])) === "timeout") {
      sendWebhookAnswer(response, 202, "text/plain", "still processing\n");
      // The answer is sent; a later failure is still worth a log line.
      handled.catch((error: unknown) =>
        probot.log.error({ err: error, delivery: id }, "webhook handler failed"),
      );
      return;
    }
    sendWebhookAnswer(response, 200, "text/plain", "ok\n");
  } catch (error) {
    probot.log.error({ err: error, delivery: id, event: name }, "webhook handler failed");
    sendWebhookProblem(response, toWebhookProblem(error));
  } finally {
    clearTimeout(timer);
  }
}
