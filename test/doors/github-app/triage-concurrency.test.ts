import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nock from "nock";
import { createAcknowledger } from "../../../src/doors/github-app/create-agent-forge-app.js";
import {
  createIntakeTriage,
  type TriageOutcome,
} from "../../../src/doors/github-app/create-intake-triage.js";
import { decodeGitHubRequest, type GitHubRequest } from "../../../src/doors/github-app/github-request.js";
import { toJournaledIntakeEvent } from "../../../src/doors/github-app/to-journaled-intake-event.js";
import { toPayloadJson, type JournaledDelivery } from "../../../src/queue/open-intake-journal.js";
import { createSqliteTaskQueue } from "../../../src/queue/create-sqlite-task-queue.js";
import type { TaskQueue } from "../../../src/queue/task-queue.js";
import {
  API,
  createRecordingLogger,
  createTestProbot,
  examplePayload,
  mockInstallationToken,
} from "./github-app-test-helpers.js";

const PERMISSION_PATH = "/repos/Codertocat/Hello-World/collaborators/Codertocat/permission";

function command(id: string): JournaledDelivery {
  const payload = examplePayload("issue_comment", "created");
  payload["comment"].body = "@agentforge fix the YAML anchors";
  return { id, name: "issue_comment", payloadJson: toPayloadJson(payload), receivedAt: 1 };
}

describe("background triage takes turns", () => {
  let dir: string;
  let queue: TaskQueue<GitHubRequest>;
  beforeEach(async () => {
    nock.disableNetConnect();
    dir = await mkdtemp(join(tmpdir(), "agentforge-triage-turns-"));
    queue = createSqliteTaskQueue({
      filePath: join(dir, "queue.sqlite"),
      decodePayload: decodeGitHubRequest,
    });
  });
  afterEach(async () => {
    await queue.close();
    nock.cleanAll();
    nock.enableNetConnect();
    await rm(dir, { recursive: true, force: true });
  });

  it("triages no more deliveries at once than its concurrency; the next starts when a turn ends", async () => {
    const scope = nock(API);
    mockInstallationToken(scope);
    const held: Array<() => void> = [];
    let asked: () => void = () => undefined;
    let firstAsked = new Promise<void>((resolve) => (asked = resolve));
    scope
      .get(PERMISSION_PATH)
      .times(2)
      .reply((_uri, _body, callback) => {
        held.push(() => callback(null, [200, { permission: "read", role_name: "read" }]));
        asked();
      });
    scope.post("/repos/Codertocat/Hello-World/issues/1/comments").times(2).reply(201, { id: 2 });
    const logger = createRecordingLogger();
    const probot = createTestProbot();
    const outcomes = new Map<string, TriageOutcome>();
    let bothTriaged: () => void = () => undefined;
    const done = new Promise<void>((resolve) => (bothTriaged = resolve));
    const settled: string[] = [];
    const triage = createIntakeTriage({
      deps: {
        queue,
        appSlug: "agentforge",
        redact: (text) => text,
        now: Date.now,
        logger,
        acknowledge: createAcknowledger("background", logger),
      },
      toEvent: (delivery) => toJournaledIntakeEvent(probot, delivery),
      mode: "background",
      concurrency: 1,
      journal: {
        admit: () => Promise.resolve(true),
        settle: (id) => (settled.push(id), Promise.resolve()),
        pending: () => [],
      },
      onTriaged: (id, outcome) => {
        outcomes.set(id, outcome);
        if (outcomes.size === 2) bothTriaged();
      },
    });
    await triage.triageAdmitted(command("turn-1"));
    await triage.triageAdmitted(command("turn-2"));
    await firstAsked;
    // The first holds the only turn while GitHub holds its request; the second waits for it.
    expect(held).toHaveLength(1);
    expect(triage.load()).toEqual({ running: 1, waiting: 1 });
    firstAsked = new Promise<void>((resolve) => (asked = resolve));
    held[0]?.();
    await firstAsked;
    expect(held).toHaveLength(2);
    held[1]?.();
    await done;
    expect(Object.fromEntries(outcomes)).toEqual({ "turn-1": "unauthorized", "turn-2": "unauthorized" });
    expect(settled).toEqual(["turn-1", "turn-2"]);
    expect(triage.load()).toEqual({ running: 0, waiting: 0 });
  });

  it("gives up a journaled delivery whose payload names no installation, and settles it", async () => {
    const logger = createRecordingLogger();
    const probot = createTestProbot();
    const settled: string[] = [];
    let triaged: (outcome: TriageOutcome) => void = () => undefined;
    const outcome = new Promise<TriageOutcome>((resolve) => (triaged = resolve));
    const triage = createIntakeTriage({
      deps: {
        queue,
        appSlug: "agentforge",
        redact: (text) => text,
        now: Date.now,
        logger,
        acknowledge: createAcknowledger("background", logger),
      },
      toEvent: (delivery) => toJournaledIntakeEvent(probot, delivery),
      mode: "background",
      attempts: 1,
      journal: {
        admit: () => Promise.resolve(true),
        settle: (id) => (settled.push(id), Promise.resolve()),
        pending: () => [],
      },
      onTriaged: (_id, result) => triaged(result),
    });
    const payload = examplePayload("issue_comment", "created");
    delete payload["installation"];
    await triage.triageAdmitted({
      id: "no-installation",
      name: "issue_comment",
      payloadJson: toPayloadJson(payload),
      receivedAt: 1,
    });
    expect(await outcome).toBe("error");
    // Settled: it does not come back at every start.
    expect(settled).toEqual(["no-installation"]);
    expect(await queue.stats()).toMatchObject({ queued: 0 });
  });
});
