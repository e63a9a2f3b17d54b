import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { createHmac } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nock from "nock";
import { pino } from "pino";
import { Probot } from "probot";
import { createAgentForgeApp } from "../../../src/doors/github-app/create-agent-forge-app.js";
import type { TriageOutcome } from "../../../src/doors/github-app/create-intake-triage.js";
import {
  createWebhookServer,
  DEFAULT_WEBHOOK_PATH,
} from "../../../src/doors/github-app/create-webhook-server.js";
import { decodeGitHubRequest } from "../../../src/doors/github-app/github-request.js";
import { createSqliteTaskQueue } from "../../../src/queue/create-sqlite-task-queue.js";
import { openIntakeJournal } from "../../../src/queue/open-intake-journal.js";
import {
  API,
  createAppHarness,
  createRecordingLogger,
  examplePayload,
  mockConfig,
  mockInstallationToken,
  privateKey,
  TestOctokit,
  type AppHarness,
} from "./github-app-test-helpers.js";

const OWNER = "Codertocat";
const REPO = "Hello-World";
const SECRET = "intake-test-secret";
const PERMISSION_PATH = `/repos/${OWNER}/${REPO}/collaborators/Codertocat/permission`;
const REACTION_PATH = `/repos/${OWNER}/${REPO}/issues/comments/492700400/reactions`;

function commentPayload(body: string) {
  const payload = examplePayload("issue_comment", "created");
  payload["comment"].body = body;
  return payload;
}

/** Resolves each delivery's promise when its triage ends: tests wait on the event, not a clock. */
function createTriageWaiter() {
  const outcomes = new Map<string, TriageOutcome>();
  const waiters = new Map<string, (outcome: TriageOutcome) => void>();
  return {
    onTriaged(deliveryId: string, outcome: TriageOutcome) {
      outcomes.set(deliveryId, outcome);
      waiters.get(deliveryId)?.(outcome);
    },
    triaged(deliveryId: string): Promise<TriageOutcome> {
      const known = outcomes.get(deliveryId);
      if (known !== undefined) return Promise.resolve(known);
      return new Promise((resolve) => waiters.set(deliveryId, resolve));
    },
  };
}

/** A permission request the stand-in holds until the test answers it. */
function holdPermission(scope: nock.Scope): { asked: Promise<void>; answer: (permission: string) => void } {
  let answer: (permission: string) => void = () => undefined;
  const asked = new Promise<void>((resolve) => {
    scope.get(PERMISSION_PATH).reply((_uri, _body, callback) => {
      answer = (permission) =>
        callback(null, [200, { permission, role_name: permission, user: { login: "Codertocat" } }]);
      resolve();
    });
  });
  return { asked, answer: (permission) => answer(permission) };
}

function mockAcceptedCommand(scope: nock.Scope, reactions: unknown[]): void {
  mockConfig(scope, OWNER, REPO, null);
  scope.post(REACTION_PATH, (body) => (reactions.push(body), true)).reply(201, { id: 1, content: "eyes" });
}

describe("intake answers before triage", () => {
  let dir: string;
  let harnesses: AppHarness[];

  beforeEach(async () => {
    nock.disableNetConnect();
    nock.enableNetConnect("127.0.0.1");
    dir = await mkdtemp(join(tmpdir(), "agentforge-intake-"));
    harnesses = [];
  });

  afterEach(async () => {
    nock.cleanAll();
    nock.enableNetConnect();
    for (const harness of harnesses) await harness.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("answers a signed webhook 200 while GitHub still holds the permission request, then enqueues", async () => {
    const waiter = createTriageWaiter();
    const queue = createSqliteTaskQueue({
      filePath: join(dir, "queue.sqlite"),
      decodePayload: decodeGitHubRequest,
    });
    const journal = await openIntakeJournal({ filePath: join(dir, "intake-journal.jsonl") });
    const probot = new Probot({
      appId: 1,
      privateKey,
      secret: SECRET,
      Octokit: TestOctokit,
      log: pino({ level: "silent" }),
    });
    const server: Server = await createWebhookServer({
      probot,
      app: createAgentForgeApp({
        queue,
        journal,
        logger: createRecordingLogger(),
        onTriaged: waiter.onTriaged,
      }),
      secret: SECRET,
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const scope = nock(API);
      mockInstallationToken(scope);
      const permission = holdPermission(scope);
      const reactions: unknown[] = [];
      mockAcceptedCommand(scope, reactions);
      const body = JSON.stringify(commentPayload("@agentforge fix the parser"));
      const { port } = server.address() as AddressInfo;
      // Were the answer to wait on GitHub, this would never resolve: the permission is only
      // answered below, after the answer has arrived.
      const response = await fetch(`http://127.0.0.1:${port}${DEFAULT_WEBHOOK_PATH}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-github-event": "issue_comment",
          "x-github-delivery": "d-http",
          "x-hub-signature-256": `sha256=${createHmac("sha256", SECRET).update(body).digest("hex")}`,
        },
        body,
      });
      expect(response.status).toBe(200);
      await permission.asked;
      // Durable in the journal, not yet a task a worker could claim.
      expect(journal.pending().map((delivery) => delivery.id)).toEqual(["d-http"]);
      expect(await queue.claim("early-worker")).toBeNull();
      permission.answer("write");
      expect(await waiter.triaged("d-http")).toBe("enqueued");
      expect((await queue.stats()).queued).toBe(1);
      expect(journal.pending()).toEqual([]);
      expect(reactions).toEqual([{ content: "eyes" }]);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await queue.close();
      await journal.close();
    }
  });

  it("still replies to a refused command after the answer", async () => {
    const waiter = createTriageWaiter();
    const harness = await createAppHarness({ acknowledge: "background", dir, onTriaged: waiter.onTriaged });
    harnesses.push(harness);
    const comments: { body: string }[] = [];
    const scope = nock(API);
    mockInstallationToken(scope);
    scope
      .get(PERMISSION_PATH)
      .reply(200, { permission: "write", role_name: "write", user: { login: "Codertocat" } });
    mockConfig(scope, OWNER, REPO, null);
    scope
      .post(
        `/repos/${OWNER}/${REPO}/issues/1/comments`,
        (body: { body: string }) => (comments.push(body), true),
      )
      .reply(201, { id: 9 });
    await harness.probot.receive({
      id: "d-review",
      name: "issue_comment",
      payload: commentPayload("@agentforge review") as never,
    });
    expect(await waiter.triaged("d-review")).toBe("answered");
    expect(comments[0]?.body).toContain("A review works on pull requests");
    expect((await harness.queue.stats()).queued).toBe(0);
  });

  it("writes nothing durable for a comment that is not a command", async () => {
    const harness = await createAppHarness({ acknowledge: "background", dir });
    harnesses.push(harness);
    await harness.probot.receive({
      id: "d-chat",
      name: "issue_comment",
      payload: commentPayload("thanks, looks good") as never,
    });
    expect(harness.journal.stats().records).toBe(0);
    expect(harness.unmatched).toEqual([]);
  });

  it("triages on restart a command answered before a crash, and queues it exactly once", async () => {
    const first = createTriageWaiter();
    const crashed = await createAppHarness({ acknowledge: "background", dir, onTriaged: first.onTriaged });
    harnesses.push(crashed);
    const scope = nock(API);
    mockInstallationToken(scope);
    const stuck = holdPermission(scope);
    await crashed.probot.receive({
      id: "d-crash",
      name: "issue_comment",
      payload: commentPayload("@agentforge fix it") as never,
    });
    // Answered; triage is stuck on GitHub when the server goes down.
    await stuck.asked;

    const second = createTriageWaiter();
    const resumedScope = nock(API);
    mockInstallationToken(resumedScope);
    resumedScope
      .get(PERMISSION_PATH)
      .reply(200, { permission: "write", role_name: "write", user: { login: "Codertocat" } });
    const reactions: unknown[] = [];
    mockAcceptedCommand(resumedScope, reactions);
    const restarted = await createAppHarness({ acknowledge: "background", dir, onTriaged: second.onTriaged });
    harnesses.push(restarted);
    expect(await second.triaged("d-crash")).toBe("enqueued");
    expect(resumedScope.pendingMocks()).toStrictEqual([]);
    const claimed = await restarted.queue.claim("worker");
    expect(claimed?.payload).toMatchObject({ deliveryId: "d-crash", command: { kind: "fix" } });

    // The first process's triage coming back late still makes no second task.
    const lateScope = nock(API);
    mockConfig(lateScope, OWNER, REPO, null);
    stuck.answer("write");
    expect(await first.triaged("d-crash")).toBe("duplicate");
    expect(await restarted.queue.stats()).toMatchObject({ queued: 0, running: 1 });
  });
});
