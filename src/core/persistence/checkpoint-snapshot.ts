import { randomBytes } from "node:crypto";
import type { RunCheckpoint } from "./run-checkpoint.js";
import { CHECKPOINT_SCHEMA, runCheckpointSchema } from "./run-checkpoint.js";
import { PersistenceError } from "./persistence-error.js";
import { readVersioned, schemaTag } from "./schema-version.js";

/**
 * The full checkpoint file (`checkpoint.json`). It carries a generation: deltas appended after it
 * (`checkpoint-delta.jsonl`) name the generation they extend, so deltas left over from an older
 * snapshot are never applied to a newer one.
 */
export interface CheckpointSnapshot {
  readonly checkpoint: RunCheckpoint;
  /** Absent in files written before deltas existed: then no delta applies. */
  readonly generation: string | null;
}

export function newGeneration(): string {
  return randomBytes(8).toString("hex");
}

/** Validated on the way out too: a checkpoint that cannot be read back is worse than an error now. */
export function serializeSnapshot(
  runId: string,
  checkpoint: RunCheckpoint,
  generation: string,
  file: string,
): string {
  if (checkpoint.runId !== runId) {
    throw new PersistenceError("INVALID_ID", `checkpoint of run ${checkpoint.runId} saved as ${runId}`);
  }
  const document = { schema: schemaTag(CHECKPOINT_SCHEMA), generation, ...checkpoint };
  const parsed = runCheckpointSchema.safeParse(document);
  if (!parsed.success) {
    throw new PersistenceError(
      "SCHEMA_INVALID",
      `refusing to save an invalid checkpoint for run ${runId}: ${parsed.error.issues[0]?.message ?? "invalid"} ` +
        `at ${parsed.error.issues[0]?.path.join(".") ?? "?"}`,
      { path: file, cause: parsed.error },
    );
  }
  return `${JSON.stringify(document)}\n`;
}

export function parseSnapshot(text: string, runId: string, file: string): CheckpointSnapshot {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new PersistenceError("SCHEMA_INVALID", `${file} is not valid JSON`, { path: file, cause: error });
  }
  const checkpoint = readVersioned(value, CHECKPOINT_SCHEMA, runCheckpointSchema, file);
  if (checkpoint.runId !== runId) {
    throw new PersistenceError("SCHEMA_INVALID", `${file} belongs to run ${checkpoint.runId}, not ${runId}`, {
      path: file,
    });
  }
  const generation = (value as Record<string, unknown>)["generation"];
  return { checkpoint, generation: typeof generation === "string" ? generation : null };
}
