import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { Octokit } from "@octokit/rest";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { CHECK_LIMITS, readFailingChecks } from "../../../../src/doors/github/jobs/read-failing-checks.js";
import {
  startGitHubStandIn,
  type GitHubStandIn,
} from "../../../support/github-stand-in/start-github-stand-in.js";

const OWNER = "octo";
const REPO = "demo";

describe("readFailingChecks", () => {
  let github: GitHubStandIn;
  let octokit: Octokit;
  let head = "";
  beforeAll(async () => {
    github = await startGitHubStandIn({
      repositories: [{ owner: OWNER, name: REPO, files: { "a.txt": "a\n" } }],
    });
    const silent = (): void => undefined;
    octokit = new Octokit({
      baseUrl: github.apiUrl,
      auth: github.token,
      log: { debug: silent, info: silent, warn: silent, error: silent },
    });
    head = github.branchSha(OWNER, REPO, "main")!;
  });
  afterAll(async () => {
    await github.close();
  });

  it("asks GitHub the routes its REST description names", () => {
    // The source's routes, against @octokit/rest's generated endpoint list (from GitHub's OpenAPI description).
    const source = readFileSync(resolve("src/doors/github/jobs/read-failing-checks.ts"), "utf8");
    const route = (endpoint: { DEFAULTS: { method: string; url: string } }) =>
      `${endpoint.DEFAULTS.method} ${endpoint.DEFAULTS.url}`;
    for (const endpoint of [
      octokit.rest.checks.listForRef.endpoint,
      octokit.rest.checks.listAnnotations.endpoint,
      octokit.rest.actions.downloadJobLogsForWorkflowRun.endpoint,
    ])
      expect(source).toContain(`"${route(endpoint)}"`);
  });

  it("reads output and annotations of any failing check, says when a job's log is gone, and lists what it left out", async () => {
    const ids: number[] = [];
    for (let index = 0; index < CHECK_LIMITS.checks + 2; index += 1)
      ids.push(
        github.addCheckRun(OWNER, REPO, {
          headSha: head,
          name: `check ${index}`,
          conclusion: index === 0 ? "timed_out" : "failure",
          appSlug: index === 0 ? "github-actions" : "other-ci",
          output: { summary: `summary ${index}` },
          annotations:
            index === 1
              ? [{ path: "a.txt", startLine: 1, endLine: 2, level: "warning", title: "T", message: "m" }]
              : [],
        }),
      );
    github.addCheckRun(OWNER, REPO, {
      headSha: head,
      name: "green",
      conclusion: "success",
      appSlug: "other-ci",
      output: {},
      annotations: [],
    });
    const read = await readFailingChecks(
      octokit,
      { owner: OWNER, repo: REPO, ref: head },
      { redact: (text) => text, ownAppSlug: "agentforge" },
    );
    expect(read.checks.map((check) => check.name)).toEqual(ids.map((_, index) => `check ${index}`));
    const bySource = Object.fromEntries(read.untrustedInputs.map((input) => [input.source, input.text]));
    expect(bySource[`github:check-run ${ids[0]} output`]).toContain('check "check 0" concluded timed_out');
    expect(bySource[`github:check-run ${ids[1]} annotations`]).toBe("a.txt:1-2 [warning] T: m");
    // The first is an Actions job whose log is gone (410): said, not thrown.
    expect(bySource[`github:actions-job ${ids[0]} log tail`]).toBe(
      "(the job log could not be read: GitHub answered 410)",
    );
    expect(bySource["agentforge:left-out"]).toBe("2 more failing checks were not read: check 10, check 11.");
  });
});
