import { afterEach, describe, expect, it } from "@jest/globals";
import { Redis } from "ioredis";
import { openTaskQueue } from "../../src/queue/open-task-queue.js";
import { QueueError } from "../../src/queue/queue-error.js";
import {
  DEFAULT_QUEUE_PREFIX,
  parseQueuePrefix,
  readQueuePrefix,
} from "../../src/queue/read-queue-prefix.js";
import { REDIS_URL, removeKeys } from "./bullmq/redis-test-helpers.js";
import { decodeTestPayload } from "./queue-test-helpers.js";

describe("AGENTFORGE_QUEUE_PREFIX", () => {
  it("defaults to agentforge when unset or blank", () => {
    expect(DEFAULT_QUEUE_PREFIX).toBe("agentforge");
    expect(readQueuePrefix({})).toEqual({ success: true, value: "agentforge" });
    expect(readQueuePrefix({ AGENTFORGE_QUEUE_PREFIX: "  " })).toEqual({
      success: true,
      value: "agentforge",
    });
  });

  it("takes letters, digits, _ . - up to 64 characters, trimmed", () => {
    expect(readQueuePrefix({ AGENTFORGE_QUEUE_PREFIX: " Team_a.prod-2 " })).toEqual({
      success: true,
      value: "Team_a.prod-2",
    });
    expect(parseQueuePrefix("x".repeat(64)).success).toBe(true);
  });

  it.each([
    ["a separator", "team:a"],
    ["a glob", "team*"],
    ["a character class", "team[ab]"],
    ["a hash tag", "{team}"],
    ["a space", "team a"],
    ["a newline", "team\nb"],
    ["a slash", "team/a"],
    ["a non-ASCII letter", "équipe"],
    ["65 characters", "x".repeat(65)],
  ])("refuses %s, naming the variable", (_what, value) => {
    const result = readQueuePrefix({ AGENTFORGE_QUEUE_PREFIX: value });
    expect(result.success).toBe(false);
    if (!result.success) {
      expect(result.error).toMatch(/^AGENTFORGE_QUEUE_PREFIX: expected 1 to 64 of the characters/);
      expect(result.error).toContain(JSON.stringify(value.trim()));
    }
  });

  it("shortens a very long value in the message", () => {
    const result = parseQueuePrefix("y".repeat(500));
    expect(!result.success && result.error.length).toBeLessThan(250);
  });
});

describe("openTaskQueue with a key prefix", () => {
  const prefix = `agentforge-prefix-test-${process.pid}-${Date.now()}`;
  afterEach(async () => {
    await removeKeys(prefix);
  });

  it("refuses an unsafe AGENTFORGE_QUEUE_PREFIX before touching Redis", async () => {
    const opening = openTaskQueue({
      decodePayload: decodeTestPayload,
      env: { REDIS_URL, AGENTFORGE_QUEUE_PREFIX: "bad*prefix" },
    });
    await expect(opening).rejects.toBeInstanceOf(QueueError);
    await expect(opening).rejects.toMatchObject({
      code: "INVALID_OPTIONS",
      message: expect.stringContaining("AGENTFORGE_QUEUE_PREFIX"),
    });
  });

  it("refuses an unsafe prefix option too", async () => {
    await expect(
      openTaskQueue({ decodePayload: decodeTestPayload, prefix: "a:b", env: { REDIS_URL } }),
    ).rejects.toMatchObject({ code: "INVALID_OPTIONS", message: expect.stringContaining("prefix:") });
  });

  it("writes the Redis engine's keys under AGENTFORGE_QUEUE_PREFIX only", async () => {
    const redis = new Redis(REDIS_URL);
    try {
      const queue = await openTaskQueue({
        decodePayload: decodeTestPayload,
        env: { REDIS_URL, AGENTFORGE_QUEUE_PREFIX: prefix },
      });
      const { taskId } = await queue.enqueue({
        deliveryId: `d-${prefix}`,
        key: "o/r#1",
        installationId: 1,
        payload: { label: "x" },
      });
      await queue.close();
      expect(await redis.hget(`${prefix}:tasks:gate:t:${taskId!}`, "state")).toBe("queued");
      expect(await redis.exists(`agentforge:tasks:gate:t:${taskId!}`)).toBe(0);
      const keys = await redis.keys(`*${taskId!}*`);
      expect(keys.length).toBeGreaterThan(0);
      expect(keys.every((key) => key.startsWith(`${prefix}:`))).toBe(true);
    } finally {
      await redis.quit();
    }
  });
});
