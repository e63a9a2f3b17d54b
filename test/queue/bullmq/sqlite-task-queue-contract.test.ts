import { join } from "node:path";
import { createSqliteTaskQueue } from "../../../src/queue/create-sqlite-task-queue.js";
import { decodeTestPayload, makeTempDir, removeDir } from "../queue-test-helpers.js";
import { describeTaskQueueContract } from "./task-queue-contract.js";

let dir = "";
describeTaskQueueContract("embedded SQLite", {
  async setUp() {
    dir = await makeTempDir();
  },
  open(options = {}) {
    return createSqliteTaskQueue({
      filePath: join(dir, "queue.sqlite"),
      decodePayload: decodeTestPayload,
      ...options,
    });
  },
  async tearDown() {
    await removeDir(dir);
  },
});
