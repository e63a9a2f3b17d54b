import { z } from "zod";
import { runCheckpointSchema, type RunCheckpoint } from "../../../core/persistence/run-checkpoint.js";
import type { WorkspaceChanges } from "../workspace/workspace-changes.js";

/**
 * A run carried from one worker to another through the queue: everything a worker on another
 * machine needs to continue it — the run's checkpoint (with every completed call), the calls that
 * had started, the workspace's changes against the commit it was made from, and the branch state
 * the pull request will be pushed against. Written by the worker running the task, read by the one
 * that takes it over after the first died.
 */
export interface CarriedRun {
  readonly version: 1;
  readonly runId: string;
  readonly checkpoint: RunCheckpoint;
  readonly startedCallIds: readonly string[];
  readonly changes: WorkspaceChanges;
  readonly branch: string | null;
  readonly remoteBranchSha: string | null;
  readonly progressCommentId: number | null;
  /** ISO 8601, when it was captured. */
  readonly capturedAt: string;
}

const untrackedSchema = z.discriminatedUnion("kind", [
  z.object({ path: z.string(), kind: z.literal("file"), base64: z.base64(), executable: z.boolean() }),
  z.object({ path: z.string(), kind: z.literal("symlink"), target: z.string() }),
]);

export const carriedRunSchema: z.ZodType<CarriedRun> = z.object({
  version: z.literal(1),
  runId: z.string(),
  checkpoint: runCheckpointSchema,
  startedCallIds: z.array(z.string()),
  changes: z.object({
    baseSha: z.string().regex(/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/),
    trackedPatchBase64: z.base64(),
    untracked: z.array(untrackedSchema),
  }),
  branch: z.string().nullable(),
  remoteBranchSha: z.string().nullable(),
  progressCommentId: z.number().int().nullable(),
  capturedAt: z.iso.datetime(),
});

/** A stored value as a carried run, or the reason it cannot be used (then the run starts over). */
export function readCarriedRun(
  value: unknown,
):
  | { readonly success: true; readonly value: CarriedRun }
  | { readonly success: false; readonly error: string } {
  const parsed = carriedRunSchema.safeParse(value);
  if (parsed.success) return { success: true, value: parsed.data };
  const issue = parsed.error.issues[0];
  return {
    success: false,
    error: `not a usable carried run${issue ? ` (${issue.path.join(".")}: ${issue.message})` : ""}`,
  };
}
