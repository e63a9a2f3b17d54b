import { describe, expect, it } from "@jest/globals";
import Bottleneck from "bottleneck";
import { Redis } from "ioredis";
import nock from "nock";
import { ProbotOctokit } from "probot";
import { createAppProbot } from "../../../src/doors/github-app/create-app-probot.js";
import { privateKey } from "./github-app-test-helpers.js";

const REDIS_URL = process.env.AGENTFORGE_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const settings = {
  appId: "123",
  privateKey,
  webhookSecret: "secret",
  logLevel: "fatal" as const,
  logFormat: "json" as const,
};
// Retries off so a failure shows at once; the throttle stays on: it is what is under test.
const NoRetryOctokit = ProbotOctokit.defaults((options: Record<string, unknown>) => ({
  ...options,
  retry: { enabled: false },
}));

describe("createAppProbot", () => {
  it("gives Probot's throttle a Bottleneck connection on REDIS_URL, used for requests, and closes it", async () => {
    const throttleId = `agentforge-test-${process.pid}-${Date.now()}`;
    const app = createAppProbot({ ...settings, redisUrl: REDIS_URL, throttleId }, NoRetryOctokit);
    const redis = new Redis(REDIS_URL);
    nock.disableNetConnect();
    nock.enableNetConnect(/127\.0\.0\.1|localhost/);
    try {
      const scope = nock("https://api.github.com").get("/app").reply(200, { slug: "agentforge" });
      const appOctokit = await app.probot.auth();
      const connections = [...app.throttleConnections];
      expect(connections).toHaveLength(1);
      const connection = connections[0] as InstanceType<typeof Bottleneck.IORedisConnection>;
      expect(connection).toBeInstanceOf(Bottleneck.IORedisConnection);
      await (connection.ready as unknown as Promise<unknown>);
      const response = await appOctokit.request("GET /app");
      expect(response.data).toEqual({ slug: "agentforge" });
      expect(scope.pendingMocks()).toStrictEqual([]);
      // The clustered limiter keeps its state in Redis, where every instance reads it, under this
      // deployment's id so another deployment on the same Redis has its own groups.
      const keys = await redis.keys(`b_octokit-*-${throttleId}*`);
      expect(keys.length).toBeGreaterThan(0);
    } finally {
      nock.cleanAll();
      nock.enableNetConnect();
      await app.close();
      await redis.quit();
    }
    expect(app.throttleConnections.size).toBe(0);
  });

  it("uses the in-process throttle without REDIS_URL", async () => {
    const app = createAppProbot(settings, NoRetryOctokit);
    await app.probot.auth();
    expect([...app.throttleConnections].filter((connection) => connection !== undefined)).toEqual([]);
    await app.close();
  });
});
