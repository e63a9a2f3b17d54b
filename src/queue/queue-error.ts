export type QueueErrorCode =
  "QUEUE_CLOSED" | "INVALID_TASK" | "INVALID_OPTIONS" | "STORE_FAILED" | "PAYLOAD_INVALID";

/** A harness failure of the task queue (its store, or a task that cannot be accepted). */
export class QueueError extends Error {
  override readonly name = "QueueError";
  readonly code: QueueErrorCode;

  constructor(code: QueueErrorCode, message: string, options: { readonly cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
  }
}
