import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { readCiFixMarkers } from "../../../../src/doors/github/commands/ci-fix-marker.js";
import { runGitHubJob } from "../../../../src/doors/github/jobs/run-github-job.js";
import { createScriptedModel } from "../../../support/scripted-model.js";
import { createJobHarness, OWNER, REPO, type JobHarness } from "./job-harness.js";

const FIX = {
  name: "edit_file",
  args: { path: "sum.js", old_string: "return a - b;", new_string: "return a + b;" },
};

/** Pushes `agentforge/issue-1` with one commit and opens its pull request as the app (the stand-in's author). */
async function openBotPullRequest(harness: JobHarness): Promise<{ number: number; headSha: string }> {
  const bare = harness.github.repository(OWNER, REPO).bareDir;
  const work = mkdtempSync(path.join(tmpdir(), "agentforge-ci-pr-"));
  try {
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.name=b", "-c", "user.email=b@example.com", ...args], {
        cwd: work,
        encoding: "utf8",
      });
    git("clone", "-q", bare, ".");
    git("checkout", "-q", "-b", "agentforge/issue-1");
    writeFileSync(path.join(work, "NOTES.md"), "notes\n");
    git("add", "NOTES.md");
    git("commit", "-qm", "Add notes");
    git("push", "-q", "origin", "agentforge/issue-1");
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const created = await harness.octokit.request("POST /repos/{owner}/{repo}/pulls", {
    owner: OWNER,
    repo: REPO,
    title: "Notes",
    head: "agentforge/issue-1",
    base: "main",
  });
  return { number: created.data.number, headSha: created.data.head.sha };
}

/** A red `test` job of GitHub Actions on the head, with output, an annotation and a long log. */
function addRedJob(harness: JobHarness, headSha: string): number {
  const log = [
    ...Array.from({ length: 300 }, (_, index) => `2026-12-02T06:00:00.0000000Z noise line ${index}`),
    "2026-12-02T06:00:01.0000000Z AssertionError: sum(2, 3) returned -1, expected 5",
    `2026-12-02T06:00:01.0000000Z token in the log: ${harness.github.token}`,
  ].join("\n");
  return harness.github.addCheckRun(OWNER, REPO, {
    headSha,
    name: "test",
    conclusion: "failure",
    appSlug: "github-actions",
    output: { title: "1 test failed", summary: "test.js: sum(2, 3) should be 5" },
    annotations: [{ path: "test.js", startLine: 3, message: "Expected 5, received -1" }],
    log,
  });
}

function userText(model: ReturnType<typeof createScriptedModel>): string {
  return model.requests[0]!.messages.filter((message) => message.role === "user")
    .map((message) => String(message.content ?? ""))
    .join("\n");
}

describe("the fix-ci job", () => {
  let harness: JobHarness;
  beforeEach(async () => {
    harness = await createJobHarness();
  });
  afterEach(async () => {
    await harness.close();
  });

  it("reads the failing check's output, annotation and log tail as data, fixes the branch and pushes there", async () => {
    const pull = await openBotPullRequest(harness);
    const jobId = addRedJob(harness, pull.headSha);
    harness.github.addCheckRun(OWNER, REPO, {
      headSha: pull.headSha,
      name: "lint",
      conclusion: "success",
      appSlug: "github-actions",
      output: { summary: "lint is clean" },
      annotations: [],
    });
    const model = createScriptedModel([{ calls: [FIX] }, { text: "sum subtracted; it adds now." }]);
    const outcome = await runGitHubJob(
      harness.job("fix-ci", pull.number, {
        isPullRequest: true,
        automatic: true,
        headSha: pull.headSha,
        requester: "agentforge[bot]",
      }),
      harness.deps(model),
    );
    expect(outcome.status).toBe("pull-request-updated");
    const text = userText(model);
    expect(text).toContain("test.js: sum(2, 3) should be 5");
    expect(text).toContain("test.js:3 [failure] Expected 5, received -1");
    expect(text).toContain("AssertionError: sum(2, 3) returned -1, expected 5");
    // The tail only, without Actions' timestamps, and never the token.
    expect(text).not.toContain("noise line 50\n");
    expect(text).toContain("noise line 299");
    expect(text).not.toContain("2026-12-02T06:00:01");
    expect(text).not.toContain(harness.github.token);
    expect(text).not.toContain("lint is clean");
    // Fenced as data the model must not obey.
    expect(text).toMatch(new RegExp(`untrusted[\\s\\S]*github:actions-job ${jobId} log tail`, "i"));
    const requests = harness.github.requests.map(
      (request) => `${request.method} ${request.path} ${request.status}`,
    );
    expect(requests).toContain(`GET /repos/${OWNER}/${REPO}/actions/jobs/${jobId}/logs 302`);
    const newHead = harness.github.branchSha(OWNER, REPO, "agentforge/issue-1");
    expect(newHead).not.toBe(pull.headSha);
    // Every text of the attempt says it is an automatic one, from the head it started at.
    expect(
      harness.updates.every((update) =>
        readCiFixMarkers(update).some(
          (marker) => marker.kind === "automatic" && marker.headSha === pull.headSha,
        ),
      ),
    ).toBe(true);
  }, 60_000);

  it("does nothing when a newer commit is on the branch than the one whose checks failed", async () => {
    const pull = await openBotPullRequest(harness);
    addRedJob(harness, pull.headSha);
    const model = createScriptedModel([]);
    const outcome = await runGitHubJob(
      harness.job("fix-ci", pull.number, { isPullRequest: true, automatic: true, headSha: "0".repeat(40) }),
      harness.deps(model),
    );
    expect(outcome.status).toBe("no-change");
    expect(harness.finished).toContain("the branch is now at");
    expect(model.requests).toHaveLength(0);
  }, 30_000);

  it("says nothing fails when the head's checks are green, for a person's fix ci", async () => {
    const pull = await openBotPullRequest(harness);
    const model = createScriptedModel([]);
    const outcome = await runGitHubJob(
      harness.job("fix-ci", pull.number, { isPullRequest: true }),
      harness.deps(model),
    );
    expect(outcome.status).toBe("no-change");
    expect(harness.finished).toContain("No check fails on");
    expect(readCiFixMarkers(harness.finished ?? "")).toEqual([{ kind: "requested", headSha: pull.headSha }]);
  }, 30_000);
});
