import { describe, expect, it } from "@jest/globals";
import { deriveCiFailure } from "../../../../src/doors/github/commands/derive-ci-failure.js";
import { edit, webhookExample as example } from "../../action/webhook-example.js";

const options = { appSlug: "agentforge" };
const HEAD = "ec26c3e57ca3a959ca5aad62de7213c562f8c821";

/** The example suite (on pull request #2's head), with the given conclusion and app. */
function suite(conclusion: string | null, app = "github-actions") {
  const payload = example("check_suite", "completed");
  return edit(payload, { "check_suite.conclusion": conclusion, "check_suite.app": { slug: app, name: app } });
}

function workflowRun(conclusion: string) {
  const payload = example("workflow_run", "completed");
  const pulls = (example("check_suite", "completed")["check_suite"] as { pull_requests: unknown[] })
    .pull_requests;
  return edit(payload, {
    "workflow_run.conclusion": conclusion,
    "workflow_run.head_sha": HEAD,
    "workflow_run.head_branch": "changes",
    "workflow_run.pull_requests": pulls,
    "repository.id": 186853002,
  });
}

describe("deriveCiFailure", () => {
  it("turns a failed, timed-out or never-started suite on a pull request's head into a fix-ci candidate", () => {
    for (const conclusion of ["failure", "timed_out", "startup_failure"])
      expect(deriveCiFailure("check_suite.completed", suite(conclusion), options)).toEqual({
        kind: "job",
        trigger: "ci-failure",
        number: 2,
        headSha: HEAD,
        headBranch: "changes",
        what: "the github-actions check suite",
      });
  });

  it("reads a failed workflow run the same way", () => {
    expect(deriveCiFailure("workflow_run.completed", workflowRun("failure"), options)).toMatchObject({
      kind: "job",
      number: 2,
      headSha: HEAD,
      what: "the workflow Manually triggered workflow",
    });
  });

  it("asks nothing of green, cancelled, skipped or approval-waiting runs, with the reason", () => {
    for (const conclusion of ["success", "cancelled", "neutral", "skipped", "action_required", "stale"])
      expect(deriveCiFailure("check_suite.completed", suite(conclusion), options)).toEqual({
        kind: "nothing",
        reason: `the github-actions check suite concluded ${conclusion}, which is not a failure`,
      });
    expect(deriveCiFailure("workflow_run.completed", workflowRun("success"), options)).toMatchObject({
      kind: "nothing",
    });
  });

  it("ignores the app's own check suite, suites off any pull request, and a pull request whose head moved on", () => {
    expect(deriveCiFailure("check_suite.completed", suite("failure", "agentforge"), options)).toEqual({
      kind: "nothing",
      reason: "the suite is this app's own check run",
    });
    const offPull = edit(suite("failure"), { "check_suite.pull_requests": [] });
    expect(deriveCiFailure("check_suite.completed", offPull, options)).toMatchObject({
      kind: "nothing",
      reason: "the github-actions check suite is not on a pull request's branch",
    });
    const stale = edit(suite("failure"), { "check_suite.head_sha": "f".repeat(40) });
    expect(deriveCiFailure("check_suite.completed", stale, options)).toMatchObject({
      kind: "nothing",
      reason: expect.stringContaining("no longer the head of its pull request"),
    });
  });

  it("leaves a pull request whose head is in another repository alone", () => {
    const payload = suite("failure");
    const pulls = (payload["check_suite"] as { pull_requests: { head: { repo: { id: number } } }[] })
      .pull_requests;
    pulls[0]!.head.repo.id = 1;
    expect(deriveCiFailure("check_suite.completed", payload, options)).toMatchObject({ kind: "nothing" });
  });

  it("is not the business of other events, and says so for an unusable payload", () => {
    expect(deriveCiFailure("check_suite.requested", suite("failure"), options)).toBeNull();
    expect(deriveCiFailure("check_suite.completed", { action: "completed" }, options)).toMatchObject({
      kind: "nothing",
      reason: expect.stringContaining("not usable"),
    });
  });
});
