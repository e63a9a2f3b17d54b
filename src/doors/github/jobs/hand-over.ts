import { z } from "zod";
import { runHandOverSchema, type RunHandOver } from "../../../core/run/index.js";
import type { WorkspaceChanges } from "../workspace/workspace-changes.js";

/**
 * What a worker hands over with a running task, through the queue, to a worker on another machine
 * that takes the task over after the first died: the agent run (the core's own value, opaque
 * here), the workspace's changes against the commit it was made from, and the branch state the
 * pull request will be pushed against.
 */
export interface HandOver {
  readonly version: 2;
  readonly run: RunHandOver;
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

export const handOverSchema: z.ZodType<HandOver> = z.object({
  version: z.literal(2),
  run: runHandOverSchema,
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

/** A stored value as a hand-over, or the reason it cannot be used (then the task starts over). */
export function readHandOver(
  value: unknown,
):
  { readonly success: true; readonly value: HandOver } | { readonly success: false; readonly error: string } {
  const parsed = handOverSchema.safeParse(value);
  if (parsed.success) return { success: true, value: parsed.data };
  const issue = parsed.error.issues[0];
  return {
    success: false,
    error: `not a usable hand-over${issue ? ` (${issue.path.join(".")}: ${issue.message})` : ""}`,
  };
}
