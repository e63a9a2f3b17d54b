import { access, constants } from "node:fs/promises";
import path from "node:path";

/** Looks a program up on PATH without running a shell. */
export async function findExecutable(
  name: string,
  searchPath: string | undefined,
): Promise<string | undefined> {
  if (path.isAbsolute(name)) return (await isExecutable(name)) ? name : undefined;
  for (const directory of (searchPath ?? "").split(":")) {
    if (!path.isAbsolute(directory)) continue;
    const candidate = path.join(directory, name);
    if (await isExecutable(candidate)) return candidate;
  }
  return undefined;
}

async function isExecutable(candidate: string): Promise<boolean> {
  try {
    await access(candidate, constants.X_OK);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "EACCES" || code === "ENOTDIR") return false;
    throw error;
  }
}
