import { rm } from "node:fs/promises";
import type { RunCheckpoint } from "./run-checkpoint.js";
import { CHECKPOINT_DELTA_SCHEMA, computeCheckpointDelta } from "./checkpoint-delta.js";
import { newGeneration, serializeSnapshot } from "./checkpoint-snapshot.js";
import { createGroupCommitLog, type GroupCommitLog } from "./create-group-commit-log.js";
import { ioError, PersistenceError } from "./persistence-error.js";
import type { RunPaths } from "./run-paths.js";
import { schemaTag } from "./schema-version.js";
import { writeFileAtomic, writeFileAtomicSync } from "./write-file-atomic.js";

/**
 * How a running loop records its checkpoints: the first is a full snapshot (`checkpoint.json`,
 * written atomically), every later one a delta appended to `checkpoint-delta.jsonl` — the
 * messages that are new or changed, the counters, and the pinned facts only when they changed. A
 * turn therefore costs a write proportional to what the turn added, not to the whole run.
 *
 * The delta log is folded into a new snapshot when it outgrows the snapshot (at least
 * `compactAfterBytes`), so loading stays proportional to the run's size, and once more when the
 * run closes, which leaves one complete `checkpoint.json` behind.
 *
 * Durability: each record is written to the file before `record` returns, so a killed process loses
 * nothing recorded; the disk flush runs in the background (see createGroupCommitLog), and `close`
 * waits for it.
 */
export interface CheckpointLog {
  record(checkpoint: RunCheckpoint): void;
  /** Folds the deltas into a final snapshot and flushes everything. */
  close(): Promise<void>;
}

export interface CheckpointLogOptions {
  /** Never fold deltas smaller than this (default 1 MiB); larger ones fold once they pass twice the snapshot's size. */
  readonly compactAfterBytes?: number;
}

const DEFAULT_COMPACT_AFTER_BYTES = 1024 * 1024;

interface Recorded {
  readonly checkpoint: RunCheckpoint;
  readonly factsJson: string;
}

export function createCheckpointLog(
  paths: RunPaths,
  runId: string,
  options: CheckpointLogOptions = {},
): CheckpointLog {
  const compactAfterBytes = options.compactAfterBytes ?? DEFAULT_COMPACT_AFTER_BYTES;
  let last: Recorded | null = null;
  let deltas: GroupCommitLog | null = null;
  let snapshotBytes = 0;
  const retired: Promise<void>[] = [];
  let closed = false;

  /** Writes a snapshot of `checkpoint` and starts an empty delta log for its generation. */
  const writeSnapshot = (checkpoint: RunCheckpoint): void => {
    const generation = newGeneration();
    const text = serializeSnapshot(runId, checkpoint, generation, paths.checkpoint);
    writeFileAtomicSync(paths.checkpoint, text);
    snapshotBytes = Buffer.byteLength(text);
    if (deltas) retired.push(deltas.close());
    deltas = createGroupCommitLog(paths.checkpointDelta, { truncate: true });
    deltas.append({ schema: schemaTag(CHECKPOINT_DELTA_SCHEMA), runId, generation });
  };

  return {
    record(checkpoint) {
      if (closed) throw new PersistenceError("IO_ERROR", `the checkpoint log of run ${runId} is closed`);
      // Pinned facts hand out the same object until they change: no need to serialise it again.
      const factsJson =
        last !== null && last.checkpoint.pinnedFacts === checkpoint.pinnedFacts
          ? last.factsJson
          : JSON.stringify(checkpoint.pinnedFacts);
      if (last === null || deltas === null) {
        writeSnapshot(checkpoint);
      } else {
        const delta = computeCheckpointDelta(last.checkpoint, checkpoint, {
          previousJson: last.factsJson,
          nextJson: factsJson,
        });
        deltas.append(delta);
        if (deltas.bytesWritten > Math.max(compactAfterBytes, 2 * snapshotBytes)) writeSnapshot(checkpoint);
      }
      // The loop keeps pushing onto its history array: remember a copy of the list as it is now.
      last = { checkpoint: { ...checkpoint, history: checkpoint.history.slice() }, factsJson };
    },
    async close() {
      if (closed) return;
      closed = true;
      const log = deltas;
      const final = last;
      deltas = null;
      if (log === null || final === null) return;
      try {
        await log.close();
      } finally {
        await Promise.allSettled(retired);
      }
      // One complete file for readers, then the deltas it contains are dropped.
      const text = serializeSnapshot(runId, final.checkpoint, newGeneration(), paths.checkpoint);
      await writeFileAtomic(paths.checkpoint, text);
      try {
        await rm(paths.checkpointDelta, { force: true });
      } catch (error) {
        throw ioError("remove", paths.checkpointDelta, error);
      }
    },
  };
}
