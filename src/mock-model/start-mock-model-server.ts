import { createServer } from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ChatRequestBody } from "./chat-request-body.js";
import { chatRequestBodySchema } from "./chat-request-body.js";
import { createStepQueue } from "./create-step-queue.js";
import { createTurnStepPicker, type StepPicker } from "./create-turn-step-picker.js";
import type { MockScript, MockStep } from "./mock-script.js";
import { renderChunks, renderCompletion } from "./render-mock-answer.js";
import type { MockServerProfile } from "./mock-server-profile.js";
import {
  countPromptTokensOf,
  refuseLikeRealServer,
  renderModelList,
  renderProps,
} from "./mock-server-profile.js";

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  /** The parsed body of a chat-completions request; undefined for other requests. */
  readonly body: ChatRequestBody | undefined;
  readonly model: string | undefined;
  /** Index in `script.steps` of the step that answered; undefined when none did. */
  readonly stepIndex: number | undefined;
  readonly receivedAt: number;
}

export interface MockModelServer {
  /** Base URL for an OpenAI client, ending in `/v1`. */
  readonly url: string;
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

export interface MockModelServerOptions {
  readonly script: MockScript;
  /** 0 (the default) picks a free port. */
  readonly port?: number;
  readonly host?: string;
  /** Behave like a real server in more ways: context size, tool support, tokenizer. */
  readonly profile?: MockServerProfile;
  /**
   * `order` (the default): each request takes the next step of the script. `turn`: a request is
   * answered by the step at its conversation's turn (the number of assistant messages it holds),
   * so concurrent runs each follow the whole script.
   */
  readonly steps?: "order" | "turn";
  /** Added to every chat answer's own `delay_ms`: a model that takes this long per response. */
  readonly delayMs?: number;
  /**
   * Awaited after a chat request is recorded and before it is answered, e.g. to hold requests
   * until several are in flight at once. A rejection answers HTTP 500.
   */
  readonly beforeAnswer?: (request: RecordedRequest) => Promise<void>;
}

/** An OpenAI-compatible chat-completions server that answers from a script, for tests and demos. */
export async function startMockModelServer(options: MockModelServerOptions): Promise<MockModelServer> {
  const ordered = createStepQueue(options.script);
  const picker: StepPicker =
    options.steps === "turn"
      ? createTurnStepPicker(options.script)
      : { take: (body) => ordered.take(body.model) };
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const modelNames = [
    "mock-model",
    ...new Set(options.script.steps.flatMap((step) => (step.model === undefined ? [] : [step.model]))),
  ];
  let chatRequestCount = 0;
  const profile = options.profile ?? {};

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = new URL(request.url ?? "/", "http://mock").pathname;
    const method = request.method ?? "GET";
    if (method === "GET" && path === "/v1/models") {
      requests.push({
        method,
        path,
        body: undefined,
        model: undefined,
        stepIndex: undefined,
        receivedAt: Date.now(),
      });
      sendJson(response, 200, renderModelList(profile, modelNames));
      return;
    }
    const props = method === "GET" && path === "/props" ? renderProps(profile, modelNames) : undefined;
    if (props !== undefined) {
      requests.push({
        method,
        path,
        body: undefined,
        model: undefined,
        stepIndex: undefined,
        receivedAt: Date.now(),
      });
      sendJson(response, 200, props);
      return;
    }
    if (method !== "POST" || path !== "/v1/chat/completions") {
      requests.push({
        method,
        path,
        body: undefined,
        model: undefined,
        stepIndex: undefined,
        receivedAt: Date.now(),
      });
      sendError(response, 404, `mock model server: no route for ${method} ${path}`, "not_found");
      return;
    }
    const parsed = chatRequestBodySchema.safeParse(await readJson(request));
    if (!parsed.success) {
      requests.push({
        method,
        path,
        body: undefined,
        model: undefined,
        stepIndex: undefined,
        receivedAt: Date.now(),
      });
      sendError(
        response,
        400,
        `mock model server: not a chat-completions request: ${parsed.error.message}`,
        "invalid_request_error",
      );
      return;
    }
    const body = parsed.data;
    chatRequestCount += 1;
    const requestNumber = chatRequestCount;
    const refusal = refuseLikeRealServer(profile, body);
    if (refusal !== undefined) {
      // Refused before any step is used, as a real server refuses before generating.
      requests.push({ method, path, body, model: body.model, stepIndex: undefined, receivedAt: Date.now() });
      sendJson(response, refusal.status, refusal.body);
      return;
    }
    const next = picker.take(body);
    const recorded = { method, path, body, model: body.model, stepIndex: next?.index, receivedAt: Date.now() };
    requests.push(recorded);
    await options.beforeAnswer?.(recorded);
    if (next === undefined) {
      sendError(
        response,
        400,
        `mock script exhausted: no step left for request #${requestNumber} (model ${body.model})`,
        "mock_script_exhausted",
      );
      return;
    }
    const answer = () => answerWith(next.step, body, requestNumber, response);
    const delayMs = (next.step.delay_ms ?? 0) + (options.delayMs ?? 0);
    if (delayMs === 0) {
      answer();
      return;
    }
    const timer = setTimeout(() => {
      timers.delete(timer);
      answer();
    }, delayMs);
    timers.add(timer);
  }

  function answerWith(
    step: MockStep,
    body: ChatRequestBody,
    requestNumber: number,
    response: ServerResponse,
  ): void {
    // The client may have given up during a delay.
    if (response.destroyed) return;
    const isStreaming = body.stream === true;
    switch (step.type) {
      case "hang":
        if (step.after_headers === true) {
          response.writeHead(200, { "content-type": isStreaming ? "text/event-stream" : "application/json" });
          response.flushHeaders();
        }
        return;
      case "error": {
        const headers: Record<string, string> = {};
        if (step.retry_after !== undefined) headers["retry-after"] = step.retry_after;
        if (step.retry_after_ms !== undefined) headers["retry-after-ms"] = String(step.retry_after_ms);
        const errorBody = step.body ?? {
          error: { message: `mock error: HTTP ${step.status}`, type: "mock_error", param: null, code: null },
        };
        sendJson(response, step.status, errorBody, headers);
        return;
      }
      case "text":
      case "tool_calls": {
        const context = {
          body,
          requestNumber,
          created: Math.floor(Date.now() / 1000),
          ...(profile.countPromptTokens === undefined
            ? {}
            : { promptTokens: countPromptTokensOf(profile, body) }),
        };
        const cutAfter = step.cut_after_chunks;
        if (!isStreaming && cutAfter !== undefined) {
          response.destroy();
          return;
        }
        if (!isStreaming) {
          sendJson(response, 200, renderCompletion(step, context));
          return;
        }
        response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
        const events = renderChunks(step, context).map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`);
        if (cutAfter === undefined) {
          response.end(`${events.join("")}data: [DONE]\n\n`);
          return;
        }
        // Dropped once the chunks sent so far are flushed, so the client reads them and then the cut.
        response.write(events.slice(0, cutAfter).join(""), () => response.destroy());
        return;
      }
    }
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      const detail = error instanceof Error ? error.message : String(error);
      if (!response.headersSent)
        sendError(response, 500, `mock model server failed: ${detail}`, "server_error");
      else response.destroy();
    });
  });
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const urlHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${urlHost}:${address.port}/v1`,
    requests,
    async close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      // Hanging steps keep their sockets open on purpose; close() must not wait for them.
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => {
        server.close((error) => (error === undefined ? resolve() : reject(error)));
      });
    },
  };
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const parts: Buffer[] = [];
  for await (const part of request) parts.push(part as Buffer);
  const text = Buffer.concat(parts).toString("utf8");
  try {
    return JSON.parse(text) as unknown;
  } catch (error: unknown) {
    // Handed to the schema check, which rejects it with a clear message.
    return { invalidJson: error instanceof Error ? error.message : String(error) };
  }
}

function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { "content-type": "application/json", ...headers });
  response.end(JSON.stringify(body));
}

function sendError(response: ServerResponse, status: number, message: string, type: string): void {
  sendJson(response, status, { error: { message, type, param: null, code: type } });
}
