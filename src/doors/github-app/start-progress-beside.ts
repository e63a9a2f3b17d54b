import type { JobProgress } from "../github/jobs/github-job.js";

export interface ProgressBeside {
  /** The job's view of the comment: each write waits for the start, and is dropped if it failed. */
  readonly progress: JobProgress;
  /** The job's signal: the task's own, also aborted when the start fails. */
  readonly signal: AbortSignal;
  /** Settles with the error the start failed with, or null once it succeeded; never rejects. */
  settled(): Promise<Error | null>;
}

/** The reason a job is stopped with when its progress comment could not be started. */
export class ProgressStartError extends Error {
  readonly code = "PROGRESS_START_FAILED";
  constructor(cause: unknown) {
    super("the progress comment could not be posted", { cause });
    this.name = "ProgressStartError";
  }
}

/**
 * Starts a task's progress comment beside its job instead of before it: the first write of an
 * installation waits for GitHub's write spacing (a second after the intake's reaction), and the
 * checkout need not wait with it. A failed start stops the job (its workspace is removed as on any
 * abort) and drops the job's own writes, so the task's failure is reported once, by the caller,
 * with the start's error rather than a job's "cancelled".
 */
export function startProgressBeside(
  start: () => Promise<void>,
  progress: JobProgress,
  signal: AbortSignal,
): ProgressBeside {
  const stopped = new AbortController();
  const started = start();
  const outcome: Promise<Error | null> = started.then(
    () => null,
    (error: unknown) => {
      const reason = new ProgressStartError(error);
      stopped.abort(reason);
      // The start's own error keeps what the worker loop judges a retry by (its HTTP status).
      return error instanceof Error ? error : reason;
    },
  );
  const afterStart = (write: () => Promise<void>): Promise<void> =>
    outcome.then((error) => (error === null ? write() : undefined));
  return {
    progress: {
      // An update is best effort and throttled anyway, so the job does not wait for the start;
      // the progress comment logs a failed edit itself and its update never rejects.
      update: (text) => {
        void afterStart(() => progress.update(text));
        return Promise.resolve();
      },
      finish: (text) => afterStart(() => progress.finish(text)),
    },
    signal: AbortSignal.any([signal, stopped.signal]),
    settled: () => outcome,
  };
}
