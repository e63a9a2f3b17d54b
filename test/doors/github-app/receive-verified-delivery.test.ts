import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { createHmac } from "node:crypto";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { pino } from "pino";
import { Probot } from "probot";
import {
  createWebhookServer,
  DEFAULT_WEBHOOK_PATH,
} from "../../../src/doors/github-app/create-webhook-server.js";
import { examplePayload, privateKey, TestOctokit } from "./github-app-test-helpers.js";

const SECRET = "the-guards-secret";

interface Received {
  readonly id: string;
  readonly name: string;
  readonly action: unknown;
}

describe("a delivery the guard verified goes to Probot's handlers as it is", () => {
  let server: Server;
  let url: string;
  let received: Received[];

  beforeEach(async () => {
    received = [];
    // Probot's own secret differs from the guard's: if anything after the guard checked the
    // signature again, every delivery below would be refused.
    const probot = new Probot({
      appId: 1,
      privateKey,
      secret: "not-the-guards-secret",
      Octokit: TestOctokit,
      log: pino({ level: "silent" }),
    });
    server = await createWebhookServer({
      probot,
      app: (app) => {
        app.on("issue_comment.created", (context) => {
          received.push({ id: context.id, name: context.name, action: context.payload.action });
          if (context.payload.comment.body === "fail with 422")
            throw Object.assign(new Error("the payload cannot be used"), { status: 422 });
          if (context.payload.comment.body === "fail") throw new Error("store down");
        });
      },
      secret: SECRET,
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${DEFAULT_WEBHOOK_PATH}`;
  });

  afterEach(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  function post(body: string, headers: Record<string, string> = {}): Promise<Response> {
    return fetch(url, {
      method: "POST",
      body,
      headers: {
        "content-type": "application/json",
        "x-github-event": "issue_comment",
        "x-github-delivery": "delivery-1",
        "x-hub-signature-256": `sha256=${createHmac("sha256", SECRET).update(body).digest("hex")}`,
        ...headers,
      },
    });
  }

  function comment(text: string): string {
    const payload = examplePayload("issue_comment", "created");
    payload["comment"].body = text;
    return JSON.stringify(payload);
  }

  it("answers 200 ok once the handlers resolve, with the parsed payload, id and event", async () => {
    const response = await post(comment("hello"));
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("ok\n");
    expect(received).toEqual([{ id: "delivery-1", name: "issue_comment", action: "created" }]);
  });

  it("answers a handler's error with its status, and 500 without one", async () => {
    const refused = await post(comment("fail with 422"));
    expect(refused.status).toBe(422);
    expect(await refused.json()).toEqual({ error: "Error: the payload cannot be used" });
    expect((await post(comment("fail"))).status).toBe(500);
  });

  it("refuses another content type (415) and missing event or delivery headers (400)", async () => {
    expect((await post(comment("hello"), { "content-type": "text/plain" })).status).toBe(415);
    const noDelivery = await post(comment("hello"), { "x-github-delivery": "" });
    expect(noDelivery.status).toBe(400);
    expect(await noDelivery.json()).toEqual({ error: "Required headers missing: x-github-delivery" });
    expect(received).toEqual([]);
  });
});
