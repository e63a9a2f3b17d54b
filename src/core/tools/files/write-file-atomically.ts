import { randomBytes } from "node:crypto";
import { chmod, open, rename, rm } from "node:fs/promises";
import path from "node:path";

/**
 * Writes through a temporary file in the same directory and renames it over the target, so a
 * reader (or a crash) never sees half a file. `mode` keeps an existing file's permissions (an
 * executable script stays executable); without it the process umask applies as for a new file.
 */
export async function writeFileAtomically(target: string, content: string, mode?: number): Promise<void> {
  const temporary = path.join(
    path.dirname(target),
    `.${path.basename(target)}.${randomBytes(6).toString("hex")}.tmp`,
  );
  // "wx" fails instead of following a symlink someone planted at the temporary name.
  const handle = await open(temporary, "wx", mode ?? 0o666);
  try {
    try {
      await handle.writeFile(content, "utf8");
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (mode !== undefined) await chmod(temporary, mode);
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
