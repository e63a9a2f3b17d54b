import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { createHmac } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nock from "nock";
import type { TriageOutcome } from "../../../src/doors/github-app/create-intake-triage.js";
import { DEFAULT_WEBHOOK_PATH } from "../../../src/doors/github-app/create-webhook-server.js";
import { decodeGitHubRequest, type GitHubRequest } from "../../../src/doors/github-app/github-request.js";
import type { IntakeThreadError } from "../../../src/doors/github-app/intake-thread/intake-thread-error.js";
import {
  startWebhookIntake,
  type WebhookIntake,
  type WebhookIntakeOptions,
} from "../../../src/doors/github-app/intake-thread/start-webhook-intake.js";
import { createMetrics } from "../../../src/observability/create-metrics.js";
import { createSqliteTaskQueue } from "../../../src/queue/create-sqlite-task-queue.js";
import type { TaskQueue } from "../../../src/queue/task-queue.js";
import {
  API,
  createRecordingLogger,
  createTestProbot,
  examplePayload,
  mockConfig,
  mockInstallationToken,
  mockPermission,
} from "./github-app-test-helpers.js";

const OWNER = "Codertocat";
const REPO = "Hello-World";
const SECRET = "threaded-intake-secret";
const REACTION_PATH = `/repos/${OWNER}/${REPO}/issues/comments/492700400/reactions`;

function commentBody(text: string): string {
  const payload = examplePayload("issue_comment", "created");
  payload["comment"].body = text;
  return JSON.stringify(payload);
}

/** Resolves when a delivery's triage ends: the tests wait on the event, never on a clock. */
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

/** Resolves when the 👀 reaction is posted: it follows triage in the background. */
function mockAcceptedCommand(scope: nock.Scope): Promise<void> {
  mockInstallationToken(scope);
  mockPermission(scope, OWNER, REPO, "Codertocat", "write");
  mockConfig(scope, OWNER, REPO, null);
  return new Promise((resolve) => {
    scope.post(REACTION_PATH).reply(() => (resolve(), [201, { id: 1, content: "eyes" }]));
  });
}

describe("threaded intake: the intake thread answers, this thread triages", () => {
  let dir: string;
  let journalPath: string;
  let queue: TaskQueue<GitHubRequest>;
  let intake: WebhookIntake | null;
  let waiter: ReturnType<typeof createTriageWaiter>;
  let logger: ReturnType<typeof createRecordingLogger>;
  let metrics: ReturnType<typeof createMetrics>;

  async function start(overrides: Partial<WebhookIntakeOptions> = {}): Promise<WebhookIntake> {
    intake = await startWebhookIntake({
      probot: createTestProbot(),
      secret: SECRET,
      journalPath,
      host: "127.0.0.1",
      port: 0,
      healthAndMetrics: { metrics, queue },
      triage: { queue, logger, metrics, onTriaged: waiter.onTriaged },
      ...overrides,
    });
    return intake;
  }

  function post(body: string, deliveryId: string, signature?: string): Promise<Response> {
    if (intake === null) throw new Error("start the intake first");
    return fetch(`${intake.url}${DEFAULT_WEBHOOK_PATH}`, {
      method: "POST",
      body,
      headers: {
        "content-type": "application/json",
        "x-github-event": "issue_comment",
        "x-github-delivery": deliveryId,
        "x-hub-signature-256":
          signature ?? `sha256=${createHmac("sha256", SECRET).update(body).digest("hex")}`,
      },
    });
  }

  beforeEach(async () => {
    nock.disableNetConnect();
    nock.enableNetConnect("127.0.0.1");
    dir = await mkdtemp(join(tmpdir(), "agentforge-threaded-intake-"));
    journalPath = join(dir, "intake-journal.jsonl");
    queue = createSqliteTaskQueue({
      filePath: join(dir, "queue.sqlite"),
      decodePayload: decodeGitHubRequest,
    });
    waiter = createTriageWaiter();
    logger = createRecordingLogger();
    metrics = createMetrics({ queue });
    intake = null;
  });

  afterEach(async () => {
    await intake?.close();
    await queue.close();
    nock.cleanAll();
    nock.enableNetConnect();
    await rm(dir, { recursive: true, force: true });
  });

  it("journals a command, answers 200, triages it here into one task, and ignores its redelivery", async () => {
    const scope = nock(API);
    const reacted = mockAcceptedCommand(scope);
    await start();
    const body = commentBody("@agentforge fix the YAML anchors");
    const answer = await post(body, "delivery-command");
    expect(answer.status).toBe(200);
    expect(await answer.text()).toBe("ok\n");
    expect(await waiter.triaged("delivery-command")).toBe("enqueued");
    expect((await queue.stats()).queued).toBe(1);
    await reacted;
    expect(scope.pendingMocks()).toStrictEqual([]);

    expect((await post(body, "delivery-command")).status).toBe(200);
    expect((await queue.stats()).queued).toBe(1);
    const exposed = await (await fetch(`${intake?.url}/metrics`)).text();
    expect(exposed).toMatch(
      /agentforge_webhook_deliveries_total\{event="issue_comment.created",result="duplicate"\} 1/,
    );
    await intake?.close();
    const kinds = (await readFile(journalPath, "utf8"))
      .trim()
      .split("\n")
      .map((line) => (JSON.parse(line) as { kind: string; id: string }).kind);
    // Admitted on the intake thread, settled there when this thread's triage ended.
    expect(kinds).toEqual(["admitted", "settled"]);
  });

  it("answers 200 while GitHub still holds the permission request of that delivery's triage", async () => {
    const scope = nock(API);
    mockInstallationToken(scope);
    let answerPermission: () => void = () => undefined;
    const asked = new Promise<void>((resolve) => {
      scope
        .get(`/repos/${OWNER}/${REPO}/collaborators/Codertocat/permission`)
        .reply((_uri, _body, callback) => {
          answerPermission = () => callback(null, [200, { permission: "read", role_name: "read" }]);
          resolve();
        });
    });
    scope.post(`/repos/${OWNER}/${REPO}/issues/1/comments`).reply(201, { id: 2 });
    await start();
    const answer = await post(commentBody("@agentforge fix the YAML anchors"), "delivery-held");
    expect(answer.status).toBe(200);
    await asked;
    answerPermission();
    expect(await waiter.triaged("delivery-held")).toBe("unauthorized");
    expect((await queue.stats()).queued).toBe(0);
  });

  it("answers chatter without a journal write or a GitHub request, and counts it here", async () => {
    await start();
    const answers = await Promise.all(
      ["a", "b", "c"].map((suffix) => post(commentBody("Thanks, looks good."), `delivery-chatter-${suffix}`)),
    );
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    // The intake thread tells its counts in batches; `/metrics` asked after the answers shows them all.
    const exposed = await (await fetch(`${intake?.url}/metrics`)).text();
    expect(exposed).toMatch(
      /agentforge_webhook_deliveries_total\{event="issue_comment.created",result="ignored"\} 3/,
    );
    await intake?.close();
    expect(await readFile(journalPath, "utf8")).toBe("");
  });

  it("refuses a bad signature with 401, logged and counted on this thread; /healthz reads the queue here", async () => {
    await start();
    const body = commentBody("@agentforge fix it");
    expect((await post(body, "delivery-forged", `sha256=${"0".repeat(64)}`)).status).toBe(401);
    const exposed = await (await fetch(`${intake?.url}/metrics`)).text();
    expect(exposed).toMatch(/agentforge_webhook_refused_total\{reason="bad-signature"\} 1/);
    expect(
      logger.lines.find((line) => (line.details as { delivery?: string }).delivery === "delivery-forged")
        ?.message,
    ).toContain("WEBHOOK_SECRET");
    const health = await fetch(`${intake?.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: "ok", queue: { queued: 0 } });
  });

  it.each(["/throw", "/exit"])(
    "tells once, and logs, when the intake thread ends on its own (%s), and not when it is closed",
    async (way) => {
      const failures: IntakeThreadError[] = [];
      let told: () => void = () => undefined;
      const toldOnce = new Promise<void>((resolve) => (told = resolve));
      const started = await start({
        path: way,
        triage: { queue, logger },
        threadEntry: new URL("./fixtures/failing-intake-thread.mjs", import.meta.url),
        onFailed: (error) => {
          failures.push(error);
          told();
        },
      });
      // Started, so "intake-ready" was taken; the thread ends at this request (it gets no answer).
      await fetch(`${started.url}${way}`).catch(() => undefined);
      await toldOnce;
      await started.close();
      expect(failures).toHaveLength(1);
      expect(failures[0]?.code).toBe("INTAKE_THREAD_FAILED");
      expect(failures[0]?.message).toMatch(way === "/throw" ? /fake intake thread broke/ : /exit code 0/);
      expect(logger.lines.filter((line) => line.level === "error")).toHaveLength(1);
    },
  );

  it("triages at start a delivery the journal holds unsettled (answered before a crash)", async () => {
    const payload = JSON.parse(commentBody("@agentforge fix the YAML anchors")) as unknown;
    const admitted = {
      kind: "admitted",
      id: "delivery-before-crash",
      name: "issue_comment",
      payload,
      receivedAt: 1,
    };
    await writeFile(journalPath, `${JSON.stringify(admitted)}\n`);
    const reacted = mockAcceptedCommand(nock(API));
    await start();
    expect(await waiter.triaged("delivery-before-crash")).toBe("enqueued");
    expect((await queue.stats()).queued).toBe(1);
    await reacted;
  });
});
