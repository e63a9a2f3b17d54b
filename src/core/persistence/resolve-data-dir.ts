import { chmod, mkdir, stat } from "node:fs/promises";
import { resolve } from "node:path";
import envPaths from "env-paths";
import { ioError, PersistenceError } from "./persistence-error.js";

/** The data directory: `AGENTFORGE_DATA_DIR` when set, else the platform's data directory. */
export function resolveDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env["AGENTFORGE_DATA_DIR"];
  if (configured !== undefined && configured.trim() !== "") return resolve(configured);
  return envPaths("agentforge", { suffix: "" }).data;
}

/** Directories we create hold transcripts and tool output: readable by their owner only. */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/**
 * mkdir -p with mode 0700; an existing directory that belongs to us is tightened to 0700 (one
 * created earlier under a loose umask, or by hand). A directory owned by someone else is left
 * as it is: we could not chmod it anyway.
 */
export async function ensurePrivateDir(path: string): Promise<void> {
  try {
    await mkdir(path, { recursive: true, mode: PRIVATE_DIR_MODE });
  } catch (error) {
    throw ioError("create directory", path, error);
  }
  let info;
  try {
    info = await stat(path);
  } catch (error) {
    throw ioError("inspect directory", path, error);
  }
  if (!info.isDirectory()) {
    throw new PersistenceError("IO_ERROR", `${path} exists and is not a directory`, { path });
  }
  if (process.platform === "win32") return;
  const isOurs = typeof process.getuid === "function" && info.uid === process.getuid();
  if (isOurs && (info.mode & 0o777) !== PRIVATE_DIR_MODE) {
    try {
      await chmod(path, PRIVATE_DIR_MODE);
    } catch (error) {
      throw ioError("restrict permissions of", path, error);
    }
  }
}
