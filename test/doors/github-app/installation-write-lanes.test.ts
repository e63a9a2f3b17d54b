import { describe, expect, it } from "@jest/globals";
import { Redis } from "ioredis";
import nock from "nock";
import { ProbotOctokit } from "probot";
import { createAppProbot } from "../../../src/doors/github-app/create-app-probot.js";
import { privateKey } from "./github-app-test-helpers.js";

// Its own file: the throttle plugin keeps its limiter groups in module state, made once per
// module registry with the first client's connection.
const REDIS_URL = process.env.AGENTFORGE_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const settings = {
  appId: "123",
  privateKey,
  webhookSecret: "secret",
  logLevel: "fatal" as const,
  logFormat: "json" as const,
};
const NoRetryOctokit = ProbotOctokit.defaults((options: Record<string, unknown>) => ({
  ...options,
  retry: { enabled: false },
}));

async function isRedisReachable(): Promise<boolean> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await redis.connect();
    return (await redis.ping()) === "PONG";
  } catch {
    // Unreachable is the answer, not an error: the case is skipped and says so.
    return false;
  } finally {
    redis.disconnect();
  }
}

/**
 * GitHub's write pacing (one write a second, notifications every three) holds per installation,
 * so each installation gets its own write lane under the deployment's throttle id: the clustered
 * limiter keeps one group key per lane in Redis, where every process reads it.
 */
describe("createAppProbot's write lanes", () => {
  it("gives each installation its own lane under the deployment's throttle id", async () => {
    if (!(await isRedisReachable())) {
      process.stdout.write(`skipped: no Redis answers at ${REDIS_URL}\n`);
      return;
    }
    const throttleId = `agentforge-test-lanes-${process.pid}-${Date.now()}`;
    const app = createAppProbot({ ...settings, redisUrl: REDIS_URL, throttleId }, NoRetryOctokit);
    const redis = new Redis(REDIS_URL);
    nock.disableNetConnect();
    nock.enableNetConnect(/127\.0\.0\.1|localhost/);
    try {
      const scope = nock("https://api.github.com")
        .post(/\/app\/installations\/(41|42)\/access_tokens/)
        .times(2)
        .reply(201, { token: "ghs_test", expires_at: "2999-01-01T00:00:00Z" })
        .post(/\/repos\/o\/r\/issues\/(1|2)\/labels/)
        .times(2)
        .reply(200, []);
      for (const [installation, issue] of [
        [41, 1],
        [42, 2],
      ] as const) {
        const octokit = await app.probot.auth(installation);
        await octokit.request("POST /repos/{owner}/{repo}/issues/{issue_number}/labels", {
          owner: "o",
          repo: "r",
          issue_number: issue,
          labels: ["x"],
        });
      }
      expect(scope.pendingMocks()).toStrictEqual([]);
      const lanes = (await redis.keys(`b_octokit-write-${throttleId}*_settings`)).sort();
      expect(lanes).toEqual([
        `b_octokit-write-${throttleId}:41_settings`,
        `b_octokit-write-${throttleId}:42_settings`,
      ]);
    } finally {
      nock.cleanAll();
      nock.enableNetConnect();
      await app.close();
      const keys = await redis.keys(`b_octokit-*-${throttleId}*`);
      if (keys.length > 0) await redis.unlink(...keys);
      await redis.quit();
    }
  });
});
