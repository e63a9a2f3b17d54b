import { QueueError } from "./queue-error.js";
import type { TaskInput } from "./task-queue.js";

const MAX_ID_LENGTH = 200;

/** One set of limits for both engines, so a task valid on one is valid on the other. */
export function validateTaskInput<TPayload>(task: TaskInput<TPayload>): void {
  const problems: string[] = [];
  if (task.deliveryId.length === 0 || task.deliveryId.length > MAX_ID_LENGTH) problems.push("deliveryId");
  if (task.key.length === 0 || task.key.length > MAX_ID_LENGTH) problems.push("key");
  if (!Number.isSafeInteger(task.installationId) || task.installationId <= 0) problems.push("installationId");
  if (task.maxAttempts !== undefined && (!Number.isSafeInteger(task.maxAttempts) || task.maxAttempts < 1)) {
    problems.push("maxAttempts");
  }
  if (task.kind !== undefined && (task.kind.length === 0 || task.kind.length > MAX_ID_LENGTH)) problems.push("kind");
  const supersede = task.supersedeRunning;
  if (
    supersede !== undefined &&
    (supersede.reason.length === 0 ||
      supersede.kinds.some((kind) => kind.length === 0 || kind.length > MAX_ID_LENGTH || kind.includes("\n")))
  )
    problems.push("supersedeRunning");
  if (problems.length > 0) throw new QueueError("INVALID_TASK", `invalid task: ${problems.join(", ")}`);
}
