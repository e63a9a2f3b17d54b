import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
}

/** Parses a response file as record-proxy.mjs writes it: status, headers as JSON, blank line, body, `[ms=N]`. */
export function readRecordedResponse(path: string): RecordedResponse {
  const text = readFileSync(path);
  const headerEnd = text.indexOf("\n\n");
  const [statusLine = "", headerLine = "{}"] = text.subarray(0, headerEnd).toString("utf8").split("\n");
  const status = Number(/^HTTP (\d{3})$/.exec(statusLine)?.[1]);
  if (!Number.isInteger(status)) throw new Error(`${path}: no status line`);
  const trailer = text.lastIndexOf("\n[ms=");
  const body = text.subarray(headerEnd + 2, trailer === -1 ? text.length : trailer);
  // Framing headers described the recorded connection, not this one.
  const headers = Object.fromEntries(
    Object.entries(JSON.parse(headerLine) as Record<string, string>).filter(
      ([name]) => !["transfer-encoding", "content-length", "connection", "keep-alive"].includes(name),
    ),
  );
  return { status, headers, body };
}

export interface ReplayServer {
  /** Base URL for an OpenAI client, ending in `/v1`. */
  readonly url: string;
  /** The bodies of the requests it answered, parsed. */
  readonly requests: unknown[];
  close(): Promise<void>;
}

/** Answers each request with the next recorded response, byte for byte; 599 when none is left. */
export async function startReplayServer(responses: readonly RecordedResponse[]): Promise<ReplayServer> {
  const queue = [...responses];
  const requests: unknown[] = [];
  const server = createServer((request, response) => {
    void readBody(request).then((body) => {
      requests.push(body === "" ? null : (JSON.parse(body) as unknown));
      const next = queue.shift();
      if (next === undefined) {
        response.writeHead(599, { "content-type": "text/plain" }).end("replay exhausted");
        return;
      }
      response.writeHead(next.status, next.headers);
      response.end(next.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      );
    },
  };
}

async function readBody(request: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of request) parts.push(part as Buffer);
  return Buffer.concat(parts).toString("utf8");
}
