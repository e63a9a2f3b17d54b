import { z } from "zod";
import { runCheckpointSchema, type RunCheckpoint } from "../persistence/run-checkpoint.js";

/**
 * A run in flight as a value that can travel to another process or machine: its last checkpoint
 * (every call completed since included) and the calls that had started without a result. The
 * core writes it (`AgentRunner.exportRun`) and reads it back (`importRun`); to everyone else it is
 * opaque JSON that goes with the task.
 */
export interface RunHandOver {
  readonly version: 1;
  readonly runId: string;
  readonly checkpoint: RunCheckpoint;
  readonly startedCallIds: readonly string[];
}

export const runHandOverSchema: z.ZodType<RunHandOver> = z.object({
  version: z.literal(1),
  runId: z.string(),
  checkpoint: runCheckpointSchema,
  startedCallIds: z.array(z.string()),
});

/** Where an imported run continues: the workspace rebuilt for it and where its trace goes on. */
export interface RunPlacement {
  readonly workspaceRoot: string;
  readonly readOnlyPaths?: readonly string[];
  readonly tracePath: string | null;
  /** The importer's approval mode; a stored value never loosens it. */
  readonly approvalMode: RunCheckpoint["task"]["approvalMode"];
}

/** Where a stored run stands, for a caller deciding whether to resume it. */
export type StoredRun =
  | { readonly kind: "none" }
  /** Its files exist but cannot be read (cut by a crash, written by a newer version). */
  | { readonly kind: "unreadable"; readonly reason: string }
  | {
      readonly kind: "stored";
      readonly status: RunCheckpoint["status"];
      readonly workspaceRoot: string;
      readonly turn: number;
    };
