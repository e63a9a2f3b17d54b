import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { MessagePort } from "node:worker_threads";
import { openIntakeJournal, type IntakeJournal } from "../../../queue/open-intake-journal.js";
import { admitDelivery } from "../admit-delivery.js";
import { createWebhookGuard } from "../create-webhook-guard.js";
import { fullEventName } from "../intake-context.js";
import {
  readDeliveryHeaders,
  sendWebhookAnswer,
  sendWebhookProblem,
  toWebhookProblem,
} from "../read-delivery-headers.js";
import { toWebhookResult } from "../to-webhook-result.js";
import { isIntakeEventName } from "../intake-event-names.js";
import type { WebhookResult } from "../../../observability/create-metrics.js";
import type {
  IntakeThreadCommand,
  IntakeThreadEvent,
  IntakeThreadSettings,
} from "./intake-thread-messages.js";

/** How long a stopping thread lets answers under way finish before it closes their sockets. */
const CLOSE_GRACE_MS = 5_000;
/**
 * Deliveries answered without triage are counted here and told to the main thread (its metrics)
 * at most this often, in one message, rather than one message per delivery: at a few thousand
 * deliveries a second each message woke the main thread, which triage needs.
 */
const RECORD_FLUSH_MS = 50;

/** An error as plain fields: custom properties such as `code` do not survive a structured clone. */
function describeError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { message: String(error) };
  const code = "code" in error && typeof error.code === "string" ? { code: error.code } : {};
  return { name: error.name, message: error.message, ...code };
}

/**
 * The answering side of intake, on its own thread: it listens, verifies and parses each delivery
 * once (the guard), admits it from its payload alone, writes one that may be a command to the
 * intake journal (group commit), answers, and only then hands it to the main thread for triage.
 * Nothing here asks GitHub, touches the task queue or waits for the main thread, so the answers do
 * not queue behind triage's Octokit requests and SQLite commits (or a task run on the same
 * process). The journal is opened and written here only: one owner per file.
 */
export async function runIntakeThread(settings: IntakeThreadSettings, parent: MessagePort): Promise<void> {
  const tell = (event: IntakeThreadEvent): void => parent.postMessage(event);
  const log = (level: "info" | "warn" | "error", fields: Record<string, unknown>, message: string): void =>
    tell({ type: "intake-log", level, fields, message });
  const journal: IntakeJournal = await openIntakeJournal({ filePath: settings.journalPath });
  const recorded = new Map<string, { event: string; result: WebhookResult; count: number }>();
  let flushTimer: NodeJS.Timeout | null = null;
  const flushRecorded = (): void => {
    if (flushTimer !== null) clearTimeout(flushTimer);
    flushTimer = null;
    if (recorded.size === 0) return;
    tell({ type: "webhooks-recorded", counts: [...recorded.values()] });
    recorded.clear();
  };
  const record = (event: string, result: WebhookResult): void => {
    const key = `${event}\n${result}`;
    const entry = recorded.get(key);
    if (entry === undefined) recorded.set(key, { event, result, count: 1 });
    else entry.count += 1;
    flushTimer ??= setTimeout(flushRecorded, RECORD_FLUSH_MS);
  };
  const guard = createWebhookGuard({
    path: settings.path,
    secret: settings.secret,
    ...(settings.maxBodyBytes === undefined ? {} : { maxBodyBytes: settings.maxBodyBytes }),
    ...(settings.maxDepth === undefined ? {} : { maxDepth: settings.maxDepth }),
    onRefused: (refusal) => tell({ type: "webhook-refused", refusal }),
  });

  const answerDelivery = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const guarded = await guard(request, response);
    if (guarded.kind === "answered") return;
    if (guarded.kind === "not-a-webhook") {
      // Counts not yet told go first, so `/metrics` shows every delivery answered before it.
      flushRecorded();
      forwardOrRefuse(request, response, settings.healthUrl);
      return;
    }
    const headers = readDeliveryHeaders(request);
    if (!headers.success) {
      sendWebhookProblem(response, headers.error);
      return;
    }
    const { id, name } = headers.value;
    const event = fullEventName(name, guarded.payload);
    if (isIntakeEventName(event)) {
      let admission;
      try {
        admission = admitDelivery({ id, name: event, payload: guarded.payload }, settings.appSlug);
      } catch (error) {
        record(event, "error");
        log("warn", { err: describeError(error), delivery: id, event }, "webhook payload refused");
        sendWebhookProblem(response, toWebhookProblem(error));
        return;
      }
      if (!admission.needsTriage) {
        record(event, toWebhookResult(admission.decision));
      } else {
        const delivery = { id, name, payloadJson: guarded.payloadJson, receivedAt: Date.now() };
        if (await journal.admit(delivery)) {
          tell({ type: "delivery-admitted", delivery });
        } else {
          log("info", { delivery: id, event }, "redelivered webhook ignored");
          record(event, "duplicate");
        }
      }
    }
    sendWebhookAnswer(response, 200, "text/plain", "ok\n");
  };

  // Slow or stalled senders must not hold sockets open forever.
  const server = createServer({ requestTimeout: 30_000, headersTimeout: 10_000 }, (request, response) => {
    answerDelivery(request, response).catch((error: unknown) => {
      log("error", { err: describeError(error) }, "webhook request failed");
      if (!response.headersSent) sendWebhookProblem(response, toWebhookProblem(error));
      else response.end();
    });
  });

  parent.on("message", (command: IntakeThreadCommand) => {
    switch (command.type) {
      case "settle-delivery":
        journal.settle(command.id).catch((error: unknown) => {
          // Only means the delivery is triaged again at the next start; triage is idempotent.
          log(
            "warn",
            { err: describeError(error), delivery: command.id },
            "could not settle a triaged delivery",
          );
        });
        return;
      case "close-intake":
        void close();
        return;
    }
  });

  async function close(): Promise<void> {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const grace = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
    await closed;
    clearTimeout(grace);
    flushRecorded();
    await journal.close();
    tell({ type: "intake-closed" });
    parent.close();
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(settings.port, settings.host, () => resolve());
  });
  tell({ type: "intake-ready", port: (server.address() as AddressInfo).port, pending: journal.pending() });
}

/** `/healthz` and `/metrics` are the main thread's (the queue, the counters): passed on to it. */
function forwardOrRefuse(request: IncomingMessage, response: ServerResponse, healthUrl: string | null): void {
  const pathname = new URL(request.url ?? "/", "http://localhost").pathname;
  if (pathname !== "/healthz" && pathname !== "/metrics") {
    sendWebhookAnswer(response, 404, "text/plain", "not found\n");
    return;
  }
  if (healthUrl === null) {
    if (pathname === "/healthz" && request.method === "GET")
      sendWebhookAnswer(response, 200, "text/plain", "ok\n");
    else sendWebhookAnswer(response, 404, "text/plain", "not found\n");
    return;
  }
  const forwarded = httpRequest(`${healthUrl}${pathname}`, { method: request.method ?? "GET" }, (answer) => {
    response.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(response);
  });
  forwarded.on("error", (error) => {
    if (!response.headersSent)
      sendWebhookAnswer(response, 502, "text/plain", `health check unavailable: ${error.message}\n`);
    else response.end();
  });
  forwarded.end();
}
