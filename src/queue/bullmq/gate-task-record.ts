import { QueueError } from "../queue-error.js";
import {
  TASK_STATES,
  type ClaimedTask,
  type JsonValue,
  type TaskRecord,
  type TaskState,
} from "../task-queue.js";

/** The fields of a task hash in the gate, as Redis returns them (all strings). */
export type GateTaskFields = Readonly<Record<string, string>>;

export function toTaskRecord<TPayload>(
  taskId: string,
  fields: GateTaskFields,
  decodePayload: (value: unknown) => TPayload,
): TaskRecord<TPayload> {
  const state = fields.state;
  if (!isTaskState(state)) throw new QueueError("STORE_FAILED", `task ${taskId} has no valid state`);
  return {
    taskId,
    key: requireField(taskId, fields, "key"),
    deliveryId: requireField(taskId, fields, "deliveryId"),
    installationId: Number(requireField(taskId, fields, "installationId")),
    state,
    attempts: Number(fields.attempts ?? 0),
    maxAttempts: Number(requireField(taskId, fields, "maxAttempts")),
    payload: decodePayload(JSON.parse(requireField(taskId, fields, "payload"))),
    enqueuedAt: Number(requireField(taskId, fields, "enqueuedAt")),
    availableAt: Number(requireField(taskId, fields, "availableAt")),
    finishedAt: fields.finishedAt === undefined ? null : Number(fields.finishedAt),
    outcome: fields.outcome === undefined ? null : (JSON.parse(fields.outcome) as JsonValue),
    lastError: fields.lastError ?? null,
  };
}

export function requireField(taskId: string, fields: GateTaskFields, name: string): string {
  const value = fields[name];
  if (value === undefined) throw new QueueError("STORE_FAILED", `task ${taskId} has no ${name}`);
  return value;
}

function isTaskState(value: string | undefined): value is TaskState {
  return TASK_STATES.some((state) => state === value);
}

/** Redis answers HGETALL as a flat list of field, value, field, value... */
export function pairsToFields(pairs: readonly string[]): GateTaskFields {
  const fields: Record<string, string> = {};
  for (let index = 0; index + 1 < pairs.length; index += 2) fields[pairs[index]!] = pairs[index + 1]!;
  return fields;
}

/** The task a worker just took; throws when the stored payload no longer decodes. */
export function toClaimedTask<TPayload>(
  taskId: string,
  leaseToken: string,
  fields: GateTaskFields,
  decodePayload: (value: unknown) => TPayload,
): ClaimedTask<TPayload> {
  const payload = decodePayload(JSON.parse(requireField(taskId, fields, "payload")));
  return {
    taskId,
    leaseToken,
    key: requireField(taskId, fields, "key"),
    deliveryId: requireField(taskId, fields, "deliveryId"),
    installationId: Number(requireField(taskId, fields, "installationId")),
    attempt: Number(requireField(taskId, fields, "attempts")),
    maxAttempts: Number(requireField(taskId, fields, "maxAttempts")),
    payload,
    enqueuedAt: Number(requireField(taskId, fields, "enqueuedAt")),
    leaseExpiresAt: Number(requireField(taskId, fields, "leaseExpiresAt")),
    handOver: fields.handOver === undefined ? null : (JSON.parse(fields.handOver) as JsonValue),
  };
}
