import { join, relative, isAbsolute } from "node:path";
import { PersistenceError } from "./persistence-error.js";
import { validateId } from "./validate-id.js";

export interface RunPaths {
  /** `<dataDir>/runs/<runId>`, private to the owner. */
  readonly dir: string;
  /** The last full snapshot of the run's state. */
  readonly checkpoint: string;
  /** Deltas appended after the snapshot, one per checkpoint the loop records. */
  readonly checkpointDelta: string;
  /** Tool-call started/completed markers, appended before and after each tool runs. */
  readonly journal: string;
  /** Large tool outputs and other files of the run. */
  readonly scratch: string;
  readonly trace: string;
}

export function runsDir(dataDir: string): string {
  return join(dataDir, "runs");
}

/** Every path of a run, built from a validated id (throws INVALID_ID otherwise). */
export function runPaths(dataDir: string, runId: string): RunPaths {
  const validation = validateId(runId);
  if (!validation.success) {
    throw new PersistenceError("INVALID_ID", `invalid run id: ${validation.error}`);
  }
  const base = runsDir(dataDir);
  const dir = join(base, validation.value);
  // validateId already rules this out; the second check keeps it true if the pattern ever widens.
  const fromBase = relative(base, dir);
  if (fromBase === "" || fromBase.startsWith("..") || isAbsolute(fromBase)) {
    throw new PersistenceError("INVALID_ID", `run id ${JSON.stringify(runId)} leaves the runs directory`);
  }
  return {
    dir,
    checkpoint: join(dir, "checkpoint.json"),
    checkpointDelta: join(dir, "checkpoint-delta.jsonl"),
    journal: join(dir, "journal.jsonl"),
    scratch: join(dir, "scratch"),
    trace: join(dir, "trace.jsonl"),
  };
}
