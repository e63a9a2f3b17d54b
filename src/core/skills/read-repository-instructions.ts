import { constants } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { open, realpath } from "node:fs/promises";
import { join } from "node:path";
import { InstructionsError } from "./instructions-error.js";
import { isPathInside } from "../paths/index.js";
import { readUpTo } from "../tools/files/read-up-to.js";
import { truncateUtf8 } from "./truncate-utf8.js";

/**
 * Repository instructions: `AGENTS.md` at the root of the checkout, size-capped.
 *
 * Use this only when the checkout is itself trusted to instruct the agent (a CLI run on your own
 * repository, an issue run on the default branch). For a pull request the head is written by
 * whoever opened it, so the door must pass the base branch's AGENTS.md instead: the GitHub door
 * reads it through the API at the base ref, and a local door can use readInstructionsFromGitRef.
 * Whatever the source, the text is passed to the core as `RunInput.repositoryInstructions`.
 */
export interface RepositoryInstructionsOptions {
  readonly maxBytes?: number;
}

export const DEFAULT_INSTRUCTIONS_MAX_BYTES = 32_000;

export async function readRepositoryInstructions(
  workspaceRoot: string,
  options: RepositoryInstructionsOptions = {},
): Promise<string | null> {
  const maxBytes = options.maxBytes ?? DEFAULT_INSTRUCTIONS_MAX_BYTES;
  let realRoot: string;
  try {
    realRoot = await realpath(workspaceRoot);
  } catch (error) {
    throw new InstructionsError("IO_ERROR", `cannot resolve the workspace ${workspaceRoot}`, {
      cause: error,
    });
  }
  let realFile: string;
  try {
    realFile = await realpath(join(realRoot, "AGENTS.md"));
  } catch (error) {
    if (isMissing(error)) return null;
    throw new InstructionsError("IO_ERROR", `cannot resolve ${join(realRoot, "AGENTS.md")}`, {
      cause: error,
    });
  }
  // A link to another file of the repository is fine; one to anything outside it is not.
  if (!isPathInside(realRoot, realFile)) {
    throw new InstructionsError(
      "OUTSIDE_REPOSITORY",
      `AGENTS.md in ${realRoot} resolves to ${realFile}, outside the repository; it was not read`,
    );
  }
  let handle: FileHandle;
  try {
    // O_NONBLOCK: a FIFO planted under the name must not hang the run; fstat then refuses it.
    handle = await open(realFile, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw new InstructionsError("IO_ERROR", `cannot open ${realFile}`, { cause: error });
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new InstructionsError("NOT_A_FILE", `${realFile} is not a regular file`);
    // Read one byte more than needed at most: enough to know whether it was cut.
    const bytes = await readUpTo(handle, Math.min(info.size, maxBytes + 4));
    return withTruncationNote(bytes, maxBytes, Math.max(info.size, bytes.length));
  } finally {
    await handle.close();
  }
}

export function withTruncationNote(bytes: Uint8Array, maxBytes: number, totalBytes: number): string {
  const cut = truncateUtf8(bytes, maxBytes);
  if (!cut.isTruncated && totalBytes <= maxBytes) return cut.text;
  return `${cut.text}\n\n[AGENTS.md truncated: showing the first ${cut.keptBytes} of ${totalBytes} bytes]`;
}

function isMissing(error: unknown): boolean {
  if (typeof error !== "object" || error === null || !("code" in error)) return false;
  return error.code === "ENOENT" || error.code === "ENOTDIR";
}
