import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import nock from "nock";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parse } from "yaml";
import { admitDelivery } from "../../../src/doors/github-app/admit-delivery.js";
import type { IntakeEvent } from "../../../src/doors/github-app/intake-context.js";
import { INTAKE_EVENTS } from "../../../src/doors/github-app/triage-delivery.js";
import { edit, webhookExample as example } from "../action/webhook-example.js";
import {
  API,
  createAppHarness,
  examplePayload,
  mockConfig,
  mockInstallationToken,
  type AppHarness,
  type Payload,
} from "./github-app-test-helpers.js";

function event(name: "check_suite.completed" | "workflow_run.completed", payload: unknown) {
  // Admission reads the payload only; it never calls GitHub.
  return { id: "d-1", name, payload, octokit: undefined, config: undefined } as unknown as IntakeEvent & {
    name: typeof name;
  };
}

describe("red CI at the App's intake", () => {
  it("subscribes to every event intake answers, and may read Actions job logs", () => {
    const appYml = parse(readFileSync(resolve("app.yml"), "utf8")) as {
      default_events: string[];
      default_permissions: Record<string, string>;
    };
    const subscribed = new Set(appYml.default_events);
    for (const name of INTAKE_EVENTS) expect(subscribed).toContain(name.split(".")[0]);
    expect(appYml.default_permissions["actions"]).toBe("read");
    expect(["read", "write"]).toContain(appYml.default_permissions["checks"]);
  });

  it("admits a red suite on a pull request and ends a green one, or the app's own, from the payload alone", () => {
    const red = edit(example("check_suite", "completed"), {
      "check_suite.conclusion": "failure",
      "check_suite.app": { slug: "github-actions" },
    });
    expect(admitDelivery(event("check_suite.completed", red), "agentforge")).toEqual({ needsTriage: true });
    const green = example("check_suite", "completed");
    expect(admitDelivery(event("check_suite.completed", green), "agentforge")).toEqual({
      needsTriage: false,
      decision: "not-for-app",
    });
    const own = edit(structuredClone(red), { "check_suite.app": { slug: "agentforge" } });
    expect(admitDelivery(event("check_suite.completed", own), "agentforge")).toEqual({
      needsTriage: false,
      decision: "not-for-app",
    });
    // The example run is on no pull request.
    const run = edit(example("workflow_run", "completed"), { "workflow_run.conclusion": "failure" });
    expect(admitDelivery(event("workflow_run.completed", run), "agentforge")).toEqual({
      needsTriage: false,
      decision: "not-for-app",
    });
  });
});

describe("red CI through the App's intake", () => {
  let harness: AppHarness;
  beforeEach(async () => {
    nock.disableNetConnect();
    harness = await createAppHarness();
  });
  afterEach(async () => {
    nock.cleanAll();
    nock.enableNetConnect();
    await harness.close();
  });

  const OWNER = "Codertocat";
  const REPO = "Hello-World";
  const HEAD = "ec26c3e57ca3a959ca5aad62de7213c562f8c821";

  function redSuite(): Payload {
    const payload = examplePayload("check_suite", "completed");
    payload["check_suite"].conclusion = "failure";
    payload["check_suite"].app = { slug: "github-actions" };
    payload["check_suite"].pull_requests[0].head.ref = "agentforge/issue-1";
    return payload;
  }

  function redRun(): Payload {
    const payload = examplePayload("workflow_run", "completed", 2);
    payload["workflow_run"].conclusion = "failure";
    payload["workflow_run"].head_sha = HEAD;
    payload["workflow_run"].pull_requests = structuredClone(redSuite()["check_suite"].pull_requests);
    payload["repository"] = redSuite()["repository"];
    return payload;
  }

  it("queues one attempt for a head that both a red check suite and a red workflow run report", async () => {
    const scope = nock(API);
    mockInstallationToken(scope);
    for (let delivery = 0; delivery < 2; delivery += 1) {
      mockConfig(scope, OWNER, REPO, null);
      scope.get(`/repos/${OWNER}/${REPO}/pulls/2`).reply(200, {
        state: "open",
        user: { login: "agentforge[bot]", type: "Bot" },
        labels: [],
        head: { ref: "agentforge/issue-1", sha: HEAD, repo: { full_name: `${OWNER}/${REPO}` } },
      });
      scope.get(`/repos/${OWNER}/${REPO}/issues/2/comments`).query(true).reply(200, []);
    }
    await harness.probot.receive({ id: "suite-1", name: "check_suite", payload: redSuite() as never });
    await harness.probot.receive({ id: "run-1", name: "workflow_run", payload: redRun() as never });
    expect(scope.pendingMocks()).toStrictEqual([]);
    const stats = await harness.queue.stats();
    // The second is refused as the same attempt, not queued in place of the first.
    expect(stats.queued + stats.running).toBe(1);
    expect(stats.superseded).toBe(0);
  });
});
