import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import nock from "nock";
import {
  authorizeCommenter,
  isBotSender,
  permissionFromResponse,
} from "../../../../src/doors/github/commands/authorize-commenter.js";
import { API, createRecordingLogger, TestOctokit } from "../../github-app/github-app-test-helpers.js";

describe("authorizeCommenter", () => {
  beforeEach(() => nock.disableNetConnect());
  afterEach(() => {
    nock.cleanAll();
    nock.enableNetConnect();
  });

  it.each([
    [{ login: "dependabot[bot]" }, true],
    [{ login: "AgentForge[bot]", type: "Bot" }, true],
    [{ login: "someone", type: "Bot" }, true],
    [{ login: "octocat", type: "User" }, false],
    [{ login: "botanist", type: "User" }, false],
  ])("isBotSender(%j) is %s", (sender, expected) => {
    expect(isBotSender(sender)).toBe(expected);
  });

  it.each([
    [{ permission: "admin", role_name: "admin" }, "admin"],
    [{ permission: "write", role_name: "maintain" }, "maintain"],
    [{ permission: "read", role_name: "triage" }, "triage"],
    [{ permission: "write", role_name: "custom-deployer" }, "write"],
    [{ permission: "none", role_name: "none" }, null],
    [{ permission: "read", user: { permissions: { push: true } } }, "write"],
    ["garbage", null],
  ])("reads the level from %j", (data, expected) => {
    expect(permissionFromResponse(data)).toBe(expected);
  });

  it("ignores a bot without calling the API", async () => {
    const result = await authorizeCommenter(new TestOctokit({ auth: "t" }), {
      owner: "o",
      repo: "r",
      username: "agentforge[bot]",
      minimumPermission: "write",
    });
    expect(result).toEqual({ authorized: false, permission: null, reason: "bot" });
  });

  it("authorizes write and refuses read", async () => {
    nock(API)
      .get("/repos/o/r/collaborators/writer/permission")
      .reply(200, { permission: "write", role_name: "write" })
      .get("/repos/o/r/collaborators/reader/permission")
      .reply(200, { permission: "read", role_name: "read" });
    const octokit = new TestOctokit({ auth: "t" });
    const base = { owner: "o", repo: "r", minimumPermission: "write" as const };
    expect(await authorizeCommenter(octokit, { ...base, username: "writer" })).toEqual({
      authorized: true,
      permission: "write",
    });
    expect(await authorizeCommenter(octokit, { ...base, username: "reader" })).toMatchObject({
      authorized: false,
      reason: "insufficient-permission",
    });
  });

  it("fails closed on a 404 and logs it", async () => {
    nock(API).get("/repos/o/r/collaborators/stranger/permission").reply(404, { message: "Not Found" });
    const logger = createRecordingLogger();
    const result = await authorizeCommenter(new TestOctokit({ auth: "t" }), {
      owner: "o",
      repo: "r",
      username: "stranger",
      minimumPermission: "triage",
      logger,
    });
    expect(result).toEqual({ authorized: false, permission: null, reason: "lookup-failed" });
    expect(logger.lines[0]).toMatchObject({ level: "warn", details: { status: 404 } });
  });
});
