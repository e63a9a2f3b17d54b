import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { MockScript } from "../../../src/mock-model/mock-script.js";
import {
  startMockModelServer,
  type MockModelServer,
  type RecordedRequest,
} from "../../../src/mock-model/start-mock-model-server.js";

/**
 * The scripted model behind a gate, for a long-running App that serves several cases. Each case
 * loads its own script (a fresh mock server behind the same URL), so a case that goes wrong
 * cannot hand its leftover steps to the next. Before a chat request reaches the script, the
 * case's hook runs and the request waits for it: a test looks at the host at exact points of a
 * run (before the first tool call, after the last one) while the App waits for its model.
 */
export interface GatedModel {
  /** Base URL for an OpenAI client, ending in `/v1`. */
  readonly url: string;
  /** Serves `script` from now on; `hook` runs before each chat request (numbered from 1) is answered. */
  load(script: MockScript, hook?: (requestNumber: number) => Promise<void> | void): Promise<void>;
  /** What the model received in the current case (its tool results included), in order. */
  requests(): readonly RecordedRequest[];
  /** The first error a hook threw in the current case: the App only sees a delay, the test must look. */
  hookError(): unknown;
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startGatedModel(): Promise<GatedModel> {
  let mock: MockModelServer | undefined;
  let hook: (requestNumber: number) => Promise<void> | void = () => undefined;
  let count = 0;
  let failure: unknown;

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = await readBody(request);
    const method = request.method ?? "GET";
    const current = mock;
    if (current === undefined) {
      // The server is up between cases: the App's start-up check lists its models.
      if (method === "GET" && (request.url ?? "").endsWith("/models")) {
        response.writeHead(200, { "content-type": "application/json" }).end('{"object":"list","data":[]}');
        return;
      }
      response.writeHead(503, { "content-type": "application/json" }).end('{"error":"no script loaded"}');
      return;
    }
    if (method === "POST" && (request.url ?? "").endsWith("/chat/completions")) {
      count += 1;
      try {
        await hook(count);
      } catch (error) {
        failure ??= error;
      }
    }
    const answer = await fetch(`${current.url.replace(/\/v1$/, "")}${request.url ?? "/"}`, {
      method,
      headers: { "content-type": request.headers["content-type"] ?? "application/json" },
      ...(method === "GET" || method === "HEAD" ? {} : { body }),
    });
    response.writeHead(answer.status, {
      "content-type": answer.headers.get("content-type") ?? "application/json",
    });
    response.end(Buffer.from(await answer.arrayBuffer()));
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      failure ??= error;
      response.writeHead(502).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    async load(script, next = () => undefined) {
      await mock?.close();
      mock = await startMockModelServer({ script });
      hook = next;
      count = 0;
      failure = undefined;
    },
    requests: () => mock?.requests ?? [],
    hookError: () => failure,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await mock?.close();
    },
  };
}
