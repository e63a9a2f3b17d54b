import { afterEach, describe, expect, it } from "@jest/globals";
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { startWebhookProxy, type WebhookProxy } from "../../../src/doors/github-app/start-webhook-proxy.js";
import { createRecordingLogger } from "./github-app-test-helpers.js";

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("WEBHOOK_PROXY_URL", () => {
  const servers: Server[] = [];
  let proxy: WebhookProxy | null = null;
  afterEach(async () => {
    await proxy?.stop();
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("forwards a delivery from the channel to the webhook path, with GitHub's headers and body", async () => {
    // The channel: an event stream, as smee serves one.
    let stream: ServerResponse | null = null;
    const channel = createServer((request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      response.write(": open\n\n");
      stream = response;
    });
    servers.push(channel);
    const received = new Promise<{ path: string; headers: IncomingHttpHeaders; body: string }>((resolve) => {
      const app = createServer((request, response) => {
        let body = "";
        request.on("data", (chunk: Buffer) => (body += chunk.toString()));
        request.on("end", () => {
          response.writeHead(202).end();
          resolve({ path: request.url ?? "", headers: request.headers, body });
        });
      });
      servers.push(app);
    });
    const channelUrl = `${await listen(channel)}/agentforge-channel`;
    const appUrl = await listen(servers[1]!);
    proxy = await startWebhookProxy({
      source: channelUrl,
      target: `${appUrl}/api/github/webhooks`,
      logger: createRecordingLogger(),
    });
    const payload = { action: "opened", issue: { number: 7 } };
    const delivery = {
      "x-github-event": "issues",
      "x-github-delivery": "delivery-1",
      "x-hub-signature-256": "sha256=abc",
      body: payload,
      query: {},
    };
    stream!.write(`data: ${JSON.stringify(delivery)}\n\n`);
    const forwarded = await received;
    expect(forwarded.path).toBe("/api/github/webhooks");
    expect(forwarded.headers["x-github-event"]).toBe("issues");
    expect(forwarded.headers["x-github-delivery"]).toBe("delivery-1");
    expect(forwarded.headers["x-hub-signature-256"]).toBe("sha256=abc");
    expect(JSON.parse(forwarded.body)).toEqual(payload);
  });

  it("rejects a channel that cannot be opened", async () => {
    const closed = createServer((request, response) => response.writeHead(404).end());
    servers.push(closed);
    const url = await listen(closed);
    await expect(
      startWebhookProxy({
        source: `${url}/nothing`,
        target: "http://127.0.0.1:9/api/github/webhooks",
        logger: createRecordingLogger(),
        timeoutMs: 5_000,
      }),
    ).rejects.toBeDefined();
  });
});
