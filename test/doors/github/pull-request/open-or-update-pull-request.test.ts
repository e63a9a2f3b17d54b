import { afterAll, afterEach, beforeAll, describe, expect, it } from "@jest/globals";
import { Octokit } from "@octokit/rest";
import nock from "nock";
import { openOrUpdatePullRequest } from "../../../../src/doors/github/pull-request/open-or-update-pull-request.js";

const API = "https://api.github.com";
const silent = (): void => undefined;
const quietOctokit = (): Octokit =>
  new Octokit({
    auth: "installation-token",
    log: { debug: silent, info: silent, warn: silent, error: silent },
  });
const SECRET = "ghs_prSecret0123456789abcdefABCDEFGHIJ";
const redact = (text: string): string => text.split(SECRET).join("[REDACTED]");
const BASE_OPTIONS = {
  owner: "octo",
  repo: "demo",
  head: "agentforge/issue-12",
  base: "main",
  title: "Fix the adder (#12)",
  issueNumber: 12,
  redact,
};
const LIST_QUERY = { head: "octo:agentforge/issue-12", state: "open", per_page: "10" };

describe("openOrUpdatePullRequest", () => {
  beforeAll(() => nock.disableNetConnect());
  // A later test file in this worker talks to local servers over HTTP: leave the network as found.
  afterAll(() => nock.enableNetConnect());
  afterEach(() => {
    nock.cleanAll();
  });

  it("opens a pull request, then updates the same one on the next run", async () => {
    const octokit = quietOctokit();
    const created: Record<string, unknown>[] = [];
    const patched: Record<string, unknown>[] = [];
    const scope = nock(API)
      .get("/repos/octo/demo/pulls")
      .query(LIST_QUERY)
      .reply(200, [])
      .post("/repos/octo/demo/pulls", (body: Record<string, unknown>) => {
        created.push(body);
        return true;
      })
      .reply(201, { number: 34, html_url: "https://github.com/octo/demo/pull/34" })
      .get("/repos/octo/demo/pulls")
      .query(LIST_QUERY)
      .reply(200, [{ number: 34, html_url: "https://github.com/octo/demo/pull/34" }])
      .patch("/repos/octo/demo/pulls/34", (body: Record<string, unknown>) => {
        patched.push(body);
        return true;
      })
      .reply(200, { number: 34, html_url: "https://github.com/octo/demo/pull/34" });

    const first = await openOrUpdatePullRequest(octokit, {
      ...BASE_OPTIONS,
      body: `first run, leaked ${SECRET}`,
    });
    const second = await openOrUpdatePullRequest(octokit, { ...BASE_OPTIONS, body: "second run" });

    expect(first).toEqual({ number: 34, url: "https://github.com/octo/demo/pull/34", created: true });
    expect(second).toEqual({ number: 34, url: "https://github.com/octo/demo/pull/34", created: false });
    expect(created).toEqual([
      {
        head: "agentforge/issue-12",
        base: "main",
        title: "Fix the adder (#12)",
        body: "first run, leaked [REDACTED]",
      },
    ]);
    expect(patched).toEqual([{ title: "Fix the adder (#12)", body: "second run" }]);
    expect(scope.pendingMocks()).toEqual([]);
  });

  it("updates the pull request that appeared meanwhile when create answers 422", async () => {
    const octokit = quietOctokit();
    const scope = nock(API)
      .get("/repos/octo/demo/pulls")
      .query(LIST_QUERY)
      .reply(200, [])
      .post("/repos/octo/demo/pulls")
      .reply(422, { message: "Validation Failed", errors: [{ message: "A pull request already exists" }] })
      .get("/repos/octo/demo/pulls")
      .query(LIST_QUERY)
      .reply(200, [{ number: 35, html_url: "https://github.com/octo/demo/pull/35" }])
      .patch("/repos/octo/demo/pulls/35")
      .reply(200, { number: 35, html_url: "https://github.com/octo/demo/pull/35" });
    const result = await openOrUpdatePullRequest(octokit, { ...BASE_OPTIONS, body: "x" });
    expect(result).toEqual({ number: 35, url: "https://github.com/octo/demo/pull/35", created: false });
    expect(scope.pendingMocks()).toEqual([]);
  });

  it("passes on a 422 that is not a duplicate (e.g. no commits between the branches)", async () => {
    const octokit = quietOctokit();
    nock(API)
      .get("/repos/octo/demo/pulls")
      .query(LIST_QUERY)
      .reply(200, [])
      .post("/repos/octo/demo/pulls")
      .reply(422, {
        message: "Validation Failed",
        errors: [{ message: "No commits between main and agentforge/issue-12" }],
      })
      .get("/repos/octo/demo/pulls")
      .query(LIST_QUERY)
      .reply(200, []);
    await expect(openOrUpdatePullRequest(octokit, { ...BASE_OPTIONS, body: "x" })).rejects.toMatchObject({
      status: 422,
    });
  });
});
