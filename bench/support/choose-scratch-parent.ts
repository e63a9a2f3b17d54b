import { constants } from "node:fs";
import { access, statfs } from "node:fs/promises";
import os from "node:os";

const SHARED_MEMORY = "/dev/shm";

/**
 * Where a bench writes its checkouts. Each writes ~160 MB of work tree; on a disk shared with
 * other busy processes the figures then measure their write-back more than git: a step would pay
 * for the step before it. Memory (tmpfs) keeps that out; `AGENTFORGE_BENCH_SCRATCH=/some/disk/dir`
 * measures on a disk instead, and the bench then flushes before each step.
 */
export async function chooseScratchParent(): Promise<{ directory: string; isMemory: boolean }> {
  const chosen = process.env["AGENTFORGE_BENCH_SCRATCH"];
  if (chosen !== undefined && chosen !== "") return { directory: chosen, isMemory: false };
  try {
    await access(SHARED_MEMORY, constants.W_OK);
    const { bavail, bsize } = await statfs(SHARED_MEMORY);
    if (bavail * bsize > 2 * 1024 ** 3) return { directory: SHARED_MEMORY, isMemory: true };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  return { directory: os.tmpdir(), isMemory: false };
}
