import { readFile } from "node:fs/promises";
import path from "node:path";

/**
 * Whether the checkout's own git config holds a credential, as `actions/checkout` leaves one
 * when `persist-credentials` is on (an `http.<url>.extraheader` with an Authorization header, or
 * a URL with a user and password). The workspace is the one folder a sandboxed command can read,
 * so a token there would be within the agent's reach. Returns the offending setting, or null.
 */
export async function findPersistedCredentials(workspace: string): Promise<string | null> {
  let config: string;
  try {
    config = await readFile(path.join(workspace, ".git", "config"), "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // Not a git checkout (or a worktree whose config lives elsewhere): nothing stored here.
    if (code === "ENOENT" || code === "ENOTDIR") return null;
    throw error;
  }
  for (const rawLine of config.split(/\r?\n/)) {
    const line = rawLine.trim();
    if (/^extraheader\s*=\s*"?\s*authorization\s*:/i.test(line)) return "http.*.extraheader (Authorization)";
    if (/^(url|pushurl)\s*=\s*"?[a-z][a-z0-9+.-]*:\/\/[^/\s@]+:[^/\s@]+@/i.test(line))
      return "a remote URL with a password";
  }
  return null;
}
