import type { CheckpointStore } from "../persistence/create-checkpoint-store.js";
import { PersistenceError } from "../persistence/persistence-error.js";
import type { RunHandOver, RunPlacement, StoredRun } from "./run-hand-over.js";

/** What the store knows of a run, without changing anything. */
export async function inspectStoredRun(store: CheckpointStore, runId: string): Promise<StoredRun> {
  try {
    const checkpoint = await store.load(runId);
    return {
      kind: "stored",
      status: checkpoint.status,
      workspaceRoot: checkpoint.task.workspaceRoot,
      turn: checkpoint.turn,
    };
  } catch (error) {
    if (!(error instanceof PersistenceError)) throw error;
    if (error.code === "NOT_FOUND") return { kind: "none" };
    return { kind: "unreadable", reason: error.message };
  }
}

/**
 * The run as it stands, while it runs: read only (a live checkpoint write may be about to rename
 * its temporary file into place), and null before its first checkpoint or once it ended, when
 * there is nothing worth handing over.
 */
export async function exportStoredRun(store: CheckpointStore, runId: string): Promise<RunHandOver | null> {
  let state: Awaited<ReturnType<CheckpointStore["readResumeState"]>>;
  try {
    state = await store.readResumeState(runId);
  } catch (error) {
    if (error instanceof PersistenceError && error.code === "NOT_FOUND") return null;
    throw error;
  }
  if (state.checkpoint.status !== "running") return null;
  return {
    version: 1,
    runId,
    checkpoint: state.checkpoint,
    startedCallIds: [...state.startedCallIds],
  };
}

/**
 * Makes a handed-over run resumable in this store, in the workspace rebuilt for it. Calls that had
 * started and not completed stay "started": the resume reports them to the model as interrupted.
 */
export async function importStoredRun(
  store: CheckpointStore,
  handOver: RunHandOver,
  placement: RunPlacement,
): Promise<void> {
  const { runId, checkpoint } = handOver;
  // Paths of the machine it came from mean nothing here: only the placement's are kept.
  const { readOnlyPaths: _elsewhere, ...task } = checkpoint.task;
  await store.save(runId, {
    ...checkpoint,
    task: {
      ...task,
      workspaceRoot: placement.workspaceRoot,
      ...(placement.readOnlyPaths === undefined ? {} : { readOnlyPaths: placement.readOnlyPaths }),
      approvalMode: placement.approvalMode,
    },
    tracePath: placement.tracePath,
  });
  for (const callId of handOver.startedCallIds) {
    if (checkpoint.completedToolCalls[callId] === undefined) await store.markToolCallStarted(runId, callId);
  }
  await store.closeRun(runId);
}
