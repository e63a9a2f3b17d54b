import { join } from "node:path";
import { ensurePrivateDir, resolveDataDir } from "../core/persistence/index.js";
import { createSqliteTaskQueue, type SqliteTaskQueueOptions } from "./create-sqlite-task-queue.js";
import type { TaskQueue } from "./task-queue.js";

export const QUEUE_FILE_NAME = "queue.sqlite";

export type EmbeddedTaskQueueOptions<TPayload> = Omit<SqliteTaskQueueOptions<TPayload>, "filePath"> & {
  /** Defaults to `queue.sqlite` in the data directory (`AGENTFORGE_DATA_DIR`). */
  readonly filePath?: string;
  readonly env?: NodeJS.ProcessEnv;
};

/** Opens the default, embedded queue in the data directory, created private to its owner. */
export async function openEmbeddedTaskQueue<TPayload>(
  options: EmbeddedTaskQueueOptions<TPayload>,
): Promise<TaskQueue<TPayload>> {
  const { filePath, env, ...rest } = options;
  if (filePath !== undefined) return createSqliteTaskQueue({ ...rest, filePath });
  const dataDir = resolveDataDir(env);
  await ensurePrivateDir(dataDir);
  return createSqliteTaskQueue({ ...rest, filePath: join(dataDir, QUEUE_FILE_NAME) });
}
