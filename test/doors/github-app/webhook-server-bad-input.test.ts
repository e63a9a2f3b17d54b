import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createHmac } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { request as httpRequest, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nock from "nock";
import { pino } from "pino";
import { Probot } from "probot";
import { createAgentForgeApp } from "../../../src/doors/github-app/create-agent-forge-app.js";
import { exceedsDepth } from "../../../src/doors/github-app/create-webhook-guard.js";
import {
  createWebhookServer,
  DEFAULT_WEBHOOK_PATH,
} from "../../../src/doors/github-app/create-webhook-server.js";
import { decodeGitHubRequest, type GitHubRequest } from "../../../src/doors/github-app/github-request.js";
import { openIntakeJournal, type IntakeJournal } from "../../../src/queue/open-intake-journal.js";
import { createSqliteTaskQueue } from "../../../src/queue/create-sqlite-task-queue.js";
import type { TaskQueue } from "../../../src/queue/task-queue.js";
import { examplePayload, privateKey, TestOctokit } from "./github-app-test-helpers.js";

const SECRET = "webhook-test-secret";

function sign(body: string | Buffer): string {
  return `sha256=${createHmac("sha256", SECRET).update(body).digest("hex")}`;
}

interface Reply {
  readonly status: number;
  readonly body: string;
}

/** Sends a request; resolves on the response even if the server stops reading the body early. */
function send(port: number, body: string | Buffer, headers: Record<string, string>): Promise<Reply> {
  return new Promise((resolve, reject) => {
    let status: number | null = null;
    let text = "";
    const outgoing = httpRequest(
      { host: "127.0.0.1", port, method: "POST", path: DEFAULT_WEBHOOK_PATH, headers },
      (response) => {
        status = response.statusCode ?? 0;
        response.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
        response.on("end", () => resolve({ status: status ?? 0, body: text }));
        response.on("error", () => resolve({ status: status ?? 0, body: text }));
      },
    );
    // The server may answer 413 and close before all bytes are written: that is the point.
    // Once the status line has arrived, a broken pipe afterwards is expected.
    outgoing.on("error", (error: NodeJS.ErrnoException) => {
      if (status !== null) resolve({ status, body: text });
      else if (error.code !== "EPIPE" && error.code !== "ECONNRESET") reject(error);
    });
    outgoing.end(body);
  });
}

/**
 * Streams a large body over a plain socket and resolves with the status as soon as the status
 * line arrives. A raw socket, because nock (loaded by other test files in the same process)
 * wraps http.request and buffers a request body in full before passing it on.
 */
function sendLarge(
  port: number,
  headers: Record<string, string>,
  totalBytes: number,
  isChunked: boolean,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let received = "";
    let isDone = false;
    const finish = (status: number | Error): void => {
      if (isDone) return;
      isDone = true;
      socket.destroy();
      if (status instanceof Error) reject(status);
      else resolve(status);
    };
    socket.on("data", (chunk: Buffer) => {
      received += chunk.toString("latin1");
      const match = /^HTTP\/1\.1 (\d{3})/.exec(received);
      if (match !== null) finish(Number(match[1]));
    });
    socket.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE" && error.code !== "ECONNRESET") finish(error);
    });
    socket.on("close", () => finish(new Error(`closed without a status line: ${received}`)));
    const head = [
      `POST ${DEFAULT_WEBHOOK_PATH} HTTP/1.1`,
      "host: 127.0.0.1",
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
      isChunked ? "transfer-encoding: chunked" : `content-length: ${totalBytes}`,
      "",
      "",
    ].join("\r\n");
    socket.write(head);
    const chunk = Buffer.alloc(65536, 0x20);
    const framed = isChunked
      ? Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n")])
      : chunk;
    let sent = 0;
    const writeMore = (): void => {
      while (sent < totalBytes && !isDone && !socket.destroyed) {
        sent += chunk.length;
        if (!socket.write(framed)) {
          socket.once("drain", writeMore);
          return;
        }
      }
      if (isChunked && !isDone && !socket.destroyed) socket.write("0\r\n\r\n");
    };
    writeMore();
  });
}

function webhookHeaders(body: string | Buffer, extra: Record<string, string> = {}): Record<string, string> {
  return {
    "content-type": "application/json",
    "x-github-event": "issue_comment",
    "x-github-delivery": `delivery-${Math.random().toString(36).slice(2)}`,
    "x-hub-signature-256": sign(body),
    ...extra,
  };
}

describe("webhook server with bad input", () => {
  let server: Server;
  let port: number;
  let dir: string;
  let queue: TaskQueue<GitHubRequest>;
  let journal: IntakeJournal;
  const goodBody = (() => {
    const payload = examplePayload("issue_comment", "created");
    payload["comment"].body = "no mention here";
    return JSON.stringify(payload);
  })();

  beforeAll(async () => {
    nock.disableNetConnect();
    nock.enableNetConnect("127.0.0.1");
    dir = await mkdtemp(join(tmpdir(), "agentforge-server-"));
    queue = createSqliteTaskQueue({
      filePath: join(dir, "queue.sqlite"),
      decodePayload: decodeGitHubRequest,
    });
    journal = await openIntakeJournal({ filePath: join(dir, "intake-journal.jsonl") });
    const probot = new Probot({
      appId: 1,
      privateKey,
      secret: SECRET,
      Octokit: TestOctokit,
      log: pino({ level: "silent" }),
    });
    server = await createWebhookServer({
      probot,
      app: createAgentForgeApp({ queue, journal }),
      secret: SECRET,
      limits: { maxBodyBytes: 25 * 1024 * 1024 },
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await queue.close();
    await journal.close();
    await rm(dir, { recursive: true, force: true });
    nock.enableNetConnect();
  });

  async function expectStillServing(): Promise<void> {
    const reply = await send(port, goodBody, webhookHeaders(goodBody));
    expect(reply.status).toBe(200);
  }

  it("answers 200 to a good signed delivery", async () => {
    await expectStillServing();
  });

  const badRequests: [string, () => { body: string | Buffer; headers: Record<string, string> }, number][] = [
    [
      "a bad signature",
      () => ({ body: goodBody, headers: webhookHeaders(goodBody, { "x-hub-signature-256": sign("other") }) }),
      401,
    ],
    [
      "a missing signature",
      () => {
        const headers = webhookHeaders(goodBody);
        delete headers["x-hub-signature-256"];
        return { body: goodBody, headers };
      },
      400,
    ],
    [
      "a signature for another secret",
      () => ({
        body: goodBody,
        headers: webhookHeaders(goodBody, {
          "x-hub-signature-256": `sha256=${createHmac("sha256", "nope").update(goodBody).digest("hex")}`,
        }),
      }),
      401,
    ],
    [
      "truncated JSON",
      () => {
        const body = goodBody.slice(0, goodBody.length / 2);
        return { body, headers: webhookHeaders(body) };
      },
      400,
    ],
    ["an empty body", () => ({ body: "", headers: webhookHeaders("") }), 400],
    ["a JSON array", () => ({ body: "[]", headers: webhookHeaders("[]") }), 400],
    ["a JSON string", () => ({ body: '"x"', headers: webhookHeaders('"x"') }), 400],
    ["a JSON number", () => ({ body: "1", headers: webhookHeaders("1") }), 400],
    ["JSON null", () => ({ body: "null", headers: webhookHeaders("null") }), 400],
    [
      "an issue number given as a string",
      () => {
        const payload = examplePayload("issue_comment", "created");
        payload["issue"].number = "1";
        const body = JSON.stringify(payload);
        return { body, headers: webhookHeaders(body) };
      },
      400,
    ],
    [
      "a payload without an installation",
      () => {
        const payload = examplePayload("issue_comment", "created");
        delete payload["installation"];
        const body = JSON.stringify(payload);
        return { body, headers: webhookHeaders(body) };
      },
      400,
    ],
    [
      "100,000 levels of nesting",
      () => {
        const body = `{"a":${"[".repeat(100_000)}${"]".repeat(100_000)}}`;
        return { body, headers: webhookHeaders(body) };
      },
      400,
    ],
    [
      "a wrong content type",
      () => ({ body: goodBody, headers: webhookHeaders(goodBody, { "content-type": "text/plain" }) }),
      415,
    ],
  ];

  it.each(badRequests)("answers 4xx to %s and keeps serving", async (_name, build, expected) => {
    const { body, headers } = build();
    const reply = await send(port, body, headers);
    expect(reply.status).toBe(expected);
    await expectStillServing();
  });

  it("refuses a 30 MB body by its declared length with 413, before reading it", async () => {
    const headers = webhookHeaders("x");
    delete headers["content-type"];
    const started = performance.now();
    const status = await sendLarge(
      port,
      { ...headers, "content-type": "application/json" },
      30 * 1024 * 1024,
      false,
    );
    expect(status).toBe(413);
    expect(performance.now() - started).toBeLessThan(5000);
    await expectStillServing();
  });

  it("refuses a 30 MB chunked body with 413 once it passes the limit", async () => {
    const status = await sendLarge(port, webhookHeaders("x"), 30 * 1024 * 1024, true);
    expect(status).toBe(413);
    await expectStillServing();
  });

  it("counts depth outside strings only", () => {
    expect(exceedsDepth(`{"a":"${"[".repeat(1000)}"}`, 5)).toBe(false);
    expect(exceedsDepth(`{"a":"\\"${"[".repeat(10)}"}`, 5)).toBe(false);
    expect(exceedsDepth(`${"[".repeat(6)}${"]".repeat(6)}`, 5)).toBe(true);
    // An escaped backslash ends its run: the quote after it closes the string.
    expect(exceedsDepth(`{"a":"x\\\\","b":${"[".repeat(6)}${"]".repeat(6)}}`, 5)).toBe(true);
    // Three backslashes: the last escapes the quote, so the brackets are still inside the string.
    expect(exceedsDepth(`{"a":"x\\\\\\"${"[".repeat(10)}"}`, 5)).toBe(false);
    // Characters above U+007F (multi-byte in UTF-8) neither open nor close anything.
    expect(exceedsDepth(`{"a":"é✓😀[","b":[[[[]]]]}`, 5)).toBe(false);
    expect(exceedsDepth(`{"é✓😀":[[[[[[]]]]]]}`, 5)).toBe(true);
    // Bytes and text give the same answer; an unterminated string is left to the parse.
    expect(exceedsDepth(Buffer.from(`{"a":[[[[[[1]]]]]]}`), 5)).toBe(true);
    expect(exceedsDepth(`{"a":"${"[".repeat(10)}`, 5)).toBe(false);
  });

  it("agrees with the nesting JSON.parse builds, for any JSON text", () => {
    const tricky = fc.string({ unit: fc.constantFrom("a", '"', "\\", "[", "]", "{", "}", "é", "😀", "\n") });
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: "small" },
        tricky,
        fc.integer(),
        fc.array(tie("node"), { maxLength: 3 }),
        fc.dictionary(tricky, tie("node"), { maxKeys: 3 }),
      ),
    })).node;
    const depthOf = (node: unknown): number =>
      typeof node === "object" && node !== null ? 1 + Math.max(0, ...Object.values(node).map(depthOf)) : 0;
    fc.assert(
      fc.property(value, fc.integer({ min: 0, max: 6 }), (node, maxDepth) => {
        const text = JSON.stringify(node);
        expect(exceedsDepth(text, maxDepth)).toBe(depthOf(JSON.parse(text)) > maxDepth);
        expect(exceedsDepth(Buffer.from(text), maxDepth)).toBe(depthOf(JSON.parse(text)) > maxDepth);
      }),
      { numRuns: 500 },
    );
  });
});
