import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { QUEUE_FILE_NAME } from "../../../src/queue/open-embedded-task-queue.js";
import { chooseTaskQueueEngine, openTaskQueue } from "../../../src/queue/open-task-queue.js";
import { decodeTestPayload, makeTempDir, removeDir } from "../queue-test-helpers.js";
import { openBullmqTestQueue, REDIS_URL, removeKeys, uniquePrefix } from "./redis-test-helpers.js";

describe("openTaskQueue", () => {
  let dir: string;
  let prefix: string;
  beforeEach(async () => {
    dir = await makeTempDir();
    prefix = uniquePrefix();
  });
  afterEach(async () => {
    await removeKeys(prefix);
    await removeDir(dir);
  });

  it("chooses Redis only when REDIS_URL is set and not blank", () => {
    expect(chooseTaskQueueEngine({ REDIS_URL: "redis://127.0.0.1:6379" })).toBe("bullmq");
    expect(chooseTaskQueueEngine({ REDIS_URL: "  " })).toBe("embedded");
    expect(chooseTaskQueueEngine({})).toBe("embedded");
  });

  it("opens the Redis engine when REDIS_URL is set: another Redis client sees the task", async () => {
    const dataDir = join(dir, "data");
    const queue = await openTaskQueue({
      decodePayload: decodeTestPayload,
      prefix,
      env: { REDIS_URL, AGENTFORGE_DATA_DIR: dataDir },
    });
    const { taskId } = await queue.enqueue({
      deliveryId: "d",
      key: "o/r#1",
      installationId: 1,
      payload: { label: "x" },
    });
    await queue.close();
    const observer = openBullmqTestQueue(prefix);
    expect(await observer.get(taskId!)).toMatchObject({ state: "queued", payload: { label: "x" } });
    await observer.close();
    await expect(stat(dataDir)).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("opens the embedded engine in the data directory otherwise", async () => {
    const dataDir = join(dir, "data");
    const queue = await openTaskQueue({
      decodePayload: decodeTestPayload,
      env: { AGENTFORGE_DATA_DIR: dataDir },
    });
    await queue.enqueue({ deliveryId: "d", key: "o/r#1", installationId: 1, payload: { label: "x" } });
    await queue.close();
    expect((await stat(join(dataDir, QUEUE_FILE_NAME))).isFile()).toBe(true);
  });
});
