import path from "node:path";
import { pathEntryExists } from "./path-entry-exists.js";

/**
 * Files in a checkout's git directory that make git read objects from other places: alternates
 * (`objects/info/alternates`, `objects/info/http-alternates`). Sandboxed commands can write them,
 * and the host's git would then read another repository's objects, which the sandbox itself cannot
 * read: a ref or a hand-written commit naming a known commit of that repository would make the
 * host push its content. The harness's own clones never have alternates (`--no-hardlinks`, no
 * `--shared`), so any present is refused. Returns the ones found, relative to the workspace.
 */
export async function findObjectAlternates(workspaceRoot: string): Promise<string[]> {
  const found: string[] = [];
  for (const name of ["alternates", "http-alternates"]) {
    const relative = path.join(".git", "objects", "info", name);
    if (await pathEntryExists(path.join(workspaceRoot, relative))) found.push(relative);
  }
  return found;
}
