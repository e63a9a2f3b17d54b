import { createHash } from "node:crypto";
import { lstat, readFile, readdir, readlink } from "node:fs/promises";
import path from "node:path";

/** Content digests of every file under a path, keyed by workspace-relative path; null when absent. */
export type PathSnapshot = Readonly<Record<string, string>> | null;

/** Snapshots files or whole folders so "unchanged" can be checked byte for byte, `.git` included. */
export async function snapshotPath(workspace: string, relativePath: string): Promise<PathSnapshot> {
  const digests: Record<string, string> = {};
  const absolute = path.join(workspace, relativePath);
  const found = await visit(absolute, relativePath, digests);
  return found ? digests : null;
}

async function visit(absolute: string, relative: string, digests: Record<string, string>): Promise<boolean> {
  let stats;
  try {
    stats = await lstat(absolute);
  } catch (error) {
    if (["ENOENT", "ENOTDIR"].includes((error as NodeJS.ErrnoException).code ?? "")) return false;
    throw error;
  }
  if (stats.isSymbolicLink()) {
    digests[relative] = `link:${await readlink(absolute)}`;
  } else if (stats.isDirectory()) {
    digests[relative] = "directory";
    const isInsideGit = relative.split("/").includes(".git");
    for (const entry of (await readdir(absolute)).sort()) {
      // The harness's own bookkeeping changes `.git`; it counts only when asked for by name.
      if (entry === ".git" && !isInsideGit) continue;
      const child = relative === "." ? entry : `${relative}/${entry}`;
      await visit(path.join(absolute, entry), child, digests);
    }
  } else {
    digests[relative] = createHash("sha256")
      .update(await readFile(absolute))
      .digest("hex");
  }
  return true;
}
