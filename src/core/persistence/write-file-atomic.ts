import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { open, readdir, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { ioError } from "./persistence-error.js";
import { PRIVATE_FILE_MODE } from "./resolve-data-dir.js";

/**
 * Replace a file so that a crash at any moment leaves either the old or the new content at
 * `path`, never a mix: write a private temp file in the same directory (rename is only atomic
 * within one file system), flush it to disk, rename it over the target, then flush the directory
 * so the rename itself survives a power cut. A crash before the rename leaves a stray
 * `.<name>.<random>.tmp` file next to the target and the target untouched.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  const temporary = temporaryPathFor(path);
  try {
    // "wx" is O_CREAT|O_EXCL: we never write through a file or symlink someone placed there.
    const handle = await open(temporary, "wx", PRIVATE_FILE_MODE);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw ioError("write", path, error);
  }
  await syncDirectory(dirname(path));
}

/** The same steps, blocking: for the last checkpoint written while the process is exiting. */
export function writeFileAtomicSync(path: string, data: string | Uint8Array): void {
  const temporary = temporaryPathFor(path);
  try {
    const descriptor = openSync(temporary, "wx", PRIVATE_FILE_MODE);
    try {
      const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
      writeAllSync(descriptor, bytes);
      fsyncSync(descriptor);
    } finally {
      closeSync(descriptor);
    }
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw ioError("write", path, error);
  }
  syncDirectorySync(dirname(path));
}

export function temporaryPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.${randomBytes(6).toString("hex")}.tmp`);
}

const TEMPORARY_NAME = /^\..+\.[0-9a-f]{12}\.tmp$/;

/**
 * Remove temp files that crashed writes left in `directory`. Only call it when nothing is writing
 * there (on resume): a live writer's temp file looks the same.
 */
export async function removeStaleTemporaryFiles(directory: string): Promise<readonly string[]> {
  let names: string[];
  try {
    names = await readdir(directory);
  } catch (error) {
    throw ioError("list", directory, error);
  }
  const stale = names.filter((name) => TEMPORARY_NAME.test(name));
  for (const name of stale) await rm(join(directory, name), { force: true });
  return stale;
}

/** writeSync may write fewer bytes than asked; loop until the whole buffer is out. */
export function writeAllSync(descriptor: number, bytes: Uint8Array): void {
  let offset = 0;
  while (offset < bytes.length) {
    offset += writeSync(descriptor, bytes, offset, bytes.length - offset);
  }
}

// Windows cannot open a directory for fsync; NTFS journals the rename itself.
const canSyncDirectories = process.platform !== "win32";

export async function syncDirectory(directory: string): Promise<void> {
  if (!canSyncDirectories) return;
  try {
    const handle = await open(directory, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw ioError("flush directory", directory, error);
  }
}

export function syncDirectorySync(directory: string): void {
  if (!canSyncDirectories) return;
  try {
    const descriptor = openSync(directory, "r");
    try {
      fsyncSync(descriptor);
    } finally {
      closeSync(descriptor);
    }
  } catch (error) {
    throw ioError("flush directory", directory, error);
  }
}
