import { rm } from "node:fs/promises";
import path from "node:path";
import type { WorkspaceRepository } from "../../../core/git/index.js";
import type { JobWorkspaceRecord } from "./github-job.js";

/** The record's repository, when it names one (records of older versions do not: they start over). */
export function repositoryOfRecord(record: JobWorkspaceRecord): WorkspaceRepository | null {
  if (record.gitDirectory === undefined) return null;
  return {
    gitDirectory: record.gitDirectory,
    workTree: record.workspaceRoot,
    sandboxReadOnlyPaths: record.readOnlyPaths ?? [
      record.gitDirectory,
      path.join(record.workspaceRoot, ".git"),
    ],
  };
}

/**
 * A checkout made by the repository cache is one task folder holding `tree/` and `git/`; it goes
 * whole. Anything else a record names (an older version's work tree) goes part by part.
 */
export async function removeRecordedCheckout(record: JobWorkspaceRecord): Promise<void> {
  const folder = path.dirname(record.workspaceRoot);
  if (record.gitDirectory === path.join(folder, "git") && path.basename(record.workspaceRoot) === "tree") {
    await rm(folder, { recursive: true, force: true });
    return;
  }
  await rm(record.workspaceRoot, { recursive: true, force: true });
  if (record.gitDirectory !== undefined) await rm(record.gitDirectory, { recursive: true, force: true });
}
