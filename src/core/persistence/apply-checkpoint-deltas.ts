import type { CheckpointSnapshot } from "./checkpoint-snapshot.js";
import { applyCheckpointDelta, CHECKPOINT_DELTA_SCHEMA, checkpointDeltaSchema } from "./checkpoint-delta.js";
import { PersistenceError } from "./persistence-error.js";
import type { RunCheckpoint } from "./run-checkpoint.js";
import { checkSchemaTag, schemaTag } from "./schema-version.js";

export interface AppliedDeltas {
  readonly checkpoint: RunCheckpoint;
  readonly applied: number;
  /** Why some lines were not applied (a torn last line is expected after a crash). */
  readonly problems: readonly string[];
}

/**
 * Rebuilds the newest checkpoint from a snapshot and the delta log written after it. Deltas build
 * on each other, so the first one that cannot be used ends the replay: the result is then the
 * last consistent state, and the problem says which line stopped it.
 */
export function applyCheckpointDeltas(
  snapshot: CheckpointSnapshot,
  text: string,
  file: string,
): AppliedDeltas {
  const lines = text.split("\n");
  // The last piece has no newline: empty after a clean write, a torn line after a crash.
  const torn = lines.pop() ?? "";
  const problems: string[] = [];
  const tornProblem = (): string[] =>
    torn === "" ? [] : [`${file}:${lines.length + 1}: torn last line ignored`];
  const headerLine = lines[0];
  if (headerLine === undefined)
    return { checkpoint: snapshot.checkpoint, applied: 0, problems: tornProblem() };
  const header = parseLine(headerLine);
  if (header === undefined) {
    throw new PersistenceError("SCHEMA_INVALID", `${file}:1: the delta log's header is not JSON`, {
      path: file,
    });
  }
  checkSchemaTag(header, CHECKPOINT_DELTA_SCHEMA, file);
  if (!isMatchingHeader(header, snapshot)) {
    // A log of an older snapshot (a crash between writing a snapshot and restarting the log):
    // everything it held is already in the snapshot.
    return { checkpoint: snapshot.checkpoint, applied: 0, problems };
  }
  let checkpoint = snapshot.checkpoint;
  let applied = 0;
  for (let index = 1; index < lines.length; index += 1) {
    const line = lines[index] ?? "";
    if (line.trim() === "") continue;
    const where = `${file}:${index + 1}`;
    const parsed = checkpointDeltaSchema.safeParse(parseLine(line));
    if (!parsed.success) {
      problems.push(`${where}: not a valid delta; it and the deltas after it were not applied`);
      return { checkpoint, applied, problems };
    }
    try {
      checkpoint = applyCheckpointDelta(checkpoint, parsed.data);
      applied += 1;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      problems.push(`${where}: the delta does not fit the checkpoint (${reason}); replay stopped there`);
      return { checkpoint, applied, problems };
    }
  }
  return { checkpoint, applied, problems: [...problems, ...tornProblem()] };
}

function parseLine(line: string): unknown {
  try {
    return JSON.parse(line) as unknown;
  } catch {
    return undefined;
  }
}

function isMatchingHeader(header: unknown, snapshot: CheckpointSnapshot): boolean {
  if (snapshot.generation === null || typeof header !== "object" || header === null) return false;
  const record = header as Record<string, unknown>;
  return (
    record["schema"] === schemaTag(CHECKPOINT_DELTA_SCHEMA) &&
    record["runId"] === snapshot.checkpoint.runId &&
    record["generation"] === snapshot.generation
  );
}
