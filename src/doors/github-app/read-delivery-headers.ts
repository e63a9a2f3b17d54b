import type { IncomingMessage, ServerResponse } from "node:http";

const APPLICATION_JSON = /^\s*application\/json\s*(?:;|$)/u;

export interface DeliveryHeaders {
  /** `X-GitHub-Delivery`. */
  readonly id: string;
  /** `X-GitHub-Event`, without the action. */
  readonly name: string;
}

export interface WebhookAnswerProblem {
  readonly status: number;
  readonly message: string;
}

function headerOf(request: IncomingMessage, name: string): string | null {
  const value = request.headers[name];
  return typeof value === "string" && value.length > 0 ? value : null;
}

/**
 * The checks @octokit/webhooks' middleware makes before a handler runs, with its answers: 415
 * for a body that is not declared JSON, 400 when the event or the delivery id is missing.
 */
export function readDeliveryHeaders(
  request: IncomingMessage,
): { success: true; value: DeliveryHeaders } | { success: false; error: WebhookAnswerProblem } {
  if (!APPLICATION_JSON.test(headerOf(request, "content-type") ?? "")) {
    return {
      success: false,
      error: { status: 415, message: 'Unsupported "Content-Type" header value. Must be "application/json"' },
    };
  }
  const name = headerOf(request, "x-github-event");
  const id = headerOf(request, "x-github-delivery");
  if (name === null || id === null) {
    const missing = [name === null ? "x-github-event" : null, id === null ? "x-github-delivery" : null];
    const list = missing.filter((header) => header !== null).join(", ");
    return { success: false, error: { status: 400, message: `Required headers missing: ${list}` } };
  }
  return { success: true, value: { id, name } };
}

export function sendWebhookAnswer(
  response: ServerResponse,
  status: number,
  contentType: string,
  body: string,
): void {
  if (response.headersSent) return;
  response.writeHead(status, { "content-type": contentType, "content-length": Buffer.byteLength(body) });
  response.end(body);
}

/** What the sender is told about a problem: `{"error": ...}`, as @octokit/webhooks answers. */
export function sendWebhookProblem(response: ServerResponse, problem: WebhookAnswerProblem): void {
  sendWebhookAnswer(response, problem.status, "application/json", JSON.stringify({ error: problem.message }));
}

/** The first handler error's `status` (a `WebhookPayloadError` is 400), else 500. */
export function toWebhookProblem(error: unknown): WebhookAnswerProblem {
  const first = error instanceof AggregateError ? (error.errors[0] as unknown) : error;
  const status =
    typeof first === "object" && first !== null && "status" in first && typeof first.status === "number"
      ? first.status
      : 500;
  const message = first instanceof Error ? `${first.name}: ${first.message}` : "Error: the handler failed";
  return { status, message };
}
