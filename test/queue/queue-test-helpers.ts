import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createSqliteTaskQueue,
  type SqliteTaskQueueOptions,
} from "../../src/queue/create-sqlite-task-queue.js";
import type { TaskInput, TaskQueue } from "../../src/queue/task-queue.js";

export interface TestPayload {
  readonly label: string;
}

export function decodeTestPayload(value: unknown): TestPayload {
  if (typeof value === "object" && value !== null && "label" in value && typeof value.label === "string") {
    return { label: value.label };
  }
  throw new Error("not a test payload");
}

export async function makeTempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), "agentforge-queue-"));
}

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/** A clock the test moves by hand, so lease expiry and backoff need no sleeping. */
export function createManualClock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let current = start;
  return { now: () => current, advance: (ms) => (current += ms) };
}

export function openTestQueue(
  dir: string,
  options: Partial<Omit<SqliteTaskQueueOptions<TestPayload>, "decodePayload">> = {},
): TaskQueue<TestPayload> {
  return createSqliteTaskQueue({
    filePath: join(dir, "queue.sqlite"),
    decodePayload: decodeTestPayload,
    ...options,
  });
}

let counter = 0;
export function task(
  key: string,
  label: string,
  overrides: Partial<TaskInput<TestPayload>> = {},
): TaskInput<TestPayload> {
  counter += 1;
  return {
    deliveryId: `delivery-${counter}-${label}`,
    key,
    installationId: 1,
    payload: { label },
    ...overrides,
  };
}
