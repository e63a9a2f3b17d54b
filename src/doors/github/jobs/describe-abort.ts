/**
 * Why a job's signal was aborted, when the abort says so: the queue's worker aborts with an error
 * carrying `code: "TASK_CANCELLED"` and the `reason` the queue recorded (a newer push, a newer
 * command). Read by shape, so this door module needs nothing from the queue.
 */
export function abortReasonOf(signal: AbortSignal): string | null {
  if (!signal.aborted) return null;
  const reason: unknown = signal.reason;
  if (typeof reason !== "object" || reason === null) return null;
  if (!("code" in reason) || reason.code !== "TASK_CANCELLED") return null;
  if (!("reason" in reason) || typeof reason.reason !== "string") return null;
  // `stop` carries the queue's plain "cancelled on request": the generic notice says it better.
  return reason.reason === "cancelled on request" || reason.reason.length === 0 ? null : reason.reason;
}
