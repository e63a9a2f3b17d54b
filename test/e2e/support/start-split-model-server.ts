import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import type { MockScript } from "../../../src/mock-model/mock-script.js";
import {
  startMockModelServer,
  type MockModelServer,
} from "../../../src/mock-model/start-mock-model-server.js";

export interface RoutedRequest {
  /** "agent" when the request offered tools (a loop turn), "summarizer" otherwise (compaction). */
  readonly route: "agent" | "summarizer";
  readonly body: { readonly messages: unknown[]; readonly tools?: unknown[]; readonly model: string };
}

export interface SplitModelServer {
  readonly url: string;
  /** Every chat request in arrival order, with the line that answered it. */
  readonly requests: RoutedRequest[];
  readonly agent: MockModelServer;
  readonly summarizer: MockModelServer;
  close(): Promise<void>;
}

/**
 * One OpenAI-compatible endpoint in front of two scripted mock servers. The compactor calls the
 * same model as the loop, but without tools; when it runs depends on token counts, so it cannot
 * hold a fixed place in one script. Routing by "offers tools or not" keeps the agent's script in
 * turn order however many compactions happen.
 */
export async function startSplitModelServer(scripts: {
  readonly agent: MockScript;
  readonly summarizer: MockScript;
}): Promise<SplitModelServer> {
  const agent = await startMockModelServer({ script: scripts.agent });
  const summarizer = await startMockModelServer({ script: scripts.summarizer });
  const requests: RoutedRequest[] = [];

  const server = createServer((request, response) => {
    forward(request)
      .then(({ status, contentType, text }) => {
        response.writeHead(status, { "content-type": contentType });
        response.end(text);
      })
      .catch((error: unknown) => {
        response.writeHead(502, { "content-type": "application/json" });
        response.end(
          JSON.stringify({ error: { message: `split server: ${String(error)}`, type: "proxy_error" } }),
        );
      });
  });

  async function forward(
    request: IncomingMessage,
  ): Promise<{ status: number; contentType: string; text: string }> {
    const parts: Buffer[] = [];
    for await (const part of request) parts.push(part as Buffer);
    const raw = Buffer.concat(parts).toString("utf8");
    let target = agent;
    if (request.method === "POST") {
      const body = JSON.parse(raw) as RoutedRequest["body"];
      const route = Array.isArray(body.tools) && body.tools.length > 0 ? "agent" : "summarizer";
      requests.push({ route, body });
      if (route === "summarizer") target = summarizer;
    }
    const path = new URL(request.url ?? "/", "http://split").pathname.replace(/^\/v1/, "");
    const answer = await fetch(`${target.url}${path}`, {
      method: request.method ?? "GET",
      headers: { "content-type": "application/json" },
      ...(request.method === "POST" ? { body: raw } : {}),
    });
    return {
      status: answer.status,
      contentType: answer.headers.get("content-type") ?? "application/json",
      text: await answer.text(),
    };
  }

  await new Promise<void>((resolvePromise) => server.listen(0, "127.0.0.1", resolvePromise));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    agent,
    summarizer,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolvePromise) => server.close(() => resolvePromise()));
      await agent.close();
      await summarizer.close();
    },
  };
}
