import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { openEmbeddedTaskQueue, QUEUE_FILE_NAME } from "../../src/queue/open-embedded-task-queue.js";
import { decodeTestPayload, makeTempDir, removeDir } from "./queue-test-helpers.js";

describe("openEmbeddedTaskQueue", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await makeTempDir();
  });
  afterEach(async () => {
    await removeDir(dir);
  });

  it("puts the database in AGENTFORGE_DATA_DIR, in a directory only its owner can read", async () => {
    const dataDir = join(dir, "data");
    const queue = await openEmbeddedTaskQueue({
      decodePayload: decodeTestPayload,
      env: { AGENTFORGE_DATA_DIR: dataDir },
    });
    await queue.enqueue({ deliveryId: "d", key: "o/r#1", installationId: 1, payload: { label: "x" } });
    await queue.close();
    expect((await stat(join(dataDir, QUEUE_FILE_NAME))).isFile()).toBe(true);
    expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
  });
});
