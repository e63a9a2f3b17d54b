import type { CheckpointStore } from "../../core/persistence/create-checkpoint-store.js";
import type { LoopEvent } from "../../core/loop/loop-events.js";
import type { JsonValue } from "../../queue/task-queue.js";
import type { CarriedRun } from "../github/jobs/carried-run.js";
import { readTraceRunId } from "../github/jobs/prepare-job-workspace.js";
import type { TaskRecordStore } from "../github/jobs/task-record-store.js";
import { captureWorkspaceChanges } from "../github/workspace/workspace-changes.js";
import type { DoorLogger } from "../github/github-logger.js";
import type { TaskHandoff } from "./task-types.js";

export interface CarriedRunWriterOptions {
  readonly handoff: TaskHandoff;
  readonly record: TaskRecordStore;
  readonly store: CheckpointStore;
  readonly logger: DoorLogger;
  readonly taskId: string;
  /** At most one capture per interval (default 10 s); 0 captures at every turn. */
  readonly intervalMs?: number;
  readonly now?: () => number;
}

export interface CarriedRunWriter {
  /** Subscribe to the run's loop events: a capture starts at a turn's start, when one is due. */
  observe(event: LoopEvent): void;
  /** Waits for a capture in progress (call before the task ends). */
  settle(): Promise<void>;
}

/** A stored value larger than this is not written: the next worker would start over anyway. */
const MAX_CARRIED_BYTES = 64 * 1024 * 1024;
const DEFAULT_INTERVAL_MS = 10_000;

/**
 * Keeps the queue's copy of a running task up to date so that another worker, on any machine, can
 * continue the run if this one dies: at the start of a turn (the previous turn's checkpoint is
 * recorded, no tool is running), at most once per interval, it reads the run's checkpoint and
 * journal, captures the workspace's changes, and stores them with the task (Redis). Captures never
 * overlap and never fail the task: a capture that fails is logged, and the next one tries again.
 *
 * The checkpoint is read before the workspace, so the workspace can only be ahead of it: a call
 * that started in between is found done on the other worker, where the model is told to check.
 */
export function createCarriedRunWriter(options: CarriedRunWriterOptions): CarriedRunWriter {
  const intervalMs = options.intervalMs ?? DEFAULT_INTERVAL_MS;
  const now = options.now ?? Date.now;
  let lastStartedAt = Number.NEGATIVE_INFINITY;
  let inFlight: Promise<void> | null = null;
  let stopped = false;

  async function capture(): Promise<void> {
    const record = await options.record.load();
    const workspace = record?.workspace;
    if (!workspace) return;
    const runId = workspace.runId ?? (await readTraceRunId(workspace.tracePath));
    if (runId === null) return;
    const state = await options.store.loadForResume(runId);
    if (state.checkpoint.status !== "running") return;
    const changes = await captureWorkspaceChanges(workspace.workspaceRoot, workspace.baseSha);
    const carried: CarriedRun = {
      version: 1,
      runId,
      checkpoint: state.checkpoint,
      startedCallIds: [...state.startedCallIds],
      changes,
      branch: workspace.branch,
      remoteBranchSha: workspace.remoteBranchSha,
      progressCommentId: record.progressCommentId,
      capturedAt: new Date(now()).toISOString(),
    };
    const value = JSON.parse(JSON.stringify(carried)) as JsonValue;
    const size = JSON.stringify(value).length;
    if (size > MAX_CARRIED_BYTES) {
      options.logger.warn(
        { taskId: options.taskId, bytes: size },
        "the run is too large to carry to another worker; it would start over there",
      );
      return;
    }
    const stillOurs = await options.handoff.save(value);
    if (!stillOurs) stopped = true;
  }

  return {
    observe(event) {
      if (event.type !== "turn-start" || stopped || inFlight !== null) return;
      if (now() - lastStartedAt < intervalMs) return;
      lastStartedAt = now();
      inFlight = capture()
        .catch((error: unknown) => {
          options.logger.warn(
            { err: error, taskId: options.taskId },
            "could not store the run for another worker",
          );
        })
        .finally(() => {
          inFlight = null;
        });
    },
    async settle() {
      stopped = true;
      await inFlight;
    },
  };
}
