import { rename, writeFile } from "node:fs/promises";
import path from "node:path";
import type { MirrorRef } from "./read-mirror-refs.js";

function packedRefsOf(mirrorRefs: ReadonlyMap<string, MirrorRef>): string {
  const lines: [string, string][] = [];
  for (const ref of mirrorRefs.values()) {
    const name = ref.name.startsWith("refs/heads/")
      ? `refs/remotes/origin/${ref.name.slice("refs/heads/".length)}`
      : ref.name.startsWith("refs/tags/")
        ? ref.name
        : null;
    if (name === null) continue;
    lines.push([name, `${ref.objectId} ${name}\n${ref.peeledId === null ? "" : `^${ref.peeledId}\n`}`]);
  }
  lines.sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
  return `# pack-refs with: peeled fully-peeled sorted \n${lines.map(([, text]) => text).join("")}`;
}

/**
 * The task's refs as a clone makes them: the mirror's branches as `refs/remotes/origin/*` (so
 * `git log origin/main..` works in the sandbox), its tags as tags, and `origin/HEAD` naming the
 * mirror's default branch. Written beside and renamed: git may be running in the folder.
 */
export async function writeTaskRefs(
  gitDirectory: string,
  mirrorRefs: ReadonlyMap<string, MirrorRef>,
  mirrorHead: string | null,
): Promise<void> {
  const packedRefs = path.join(gitDirectory, "packed-refs");
  await writeFile(`${packedRefs}.partial`, packedRefsOf(mirrorRefs));
  await rename(`${packedRefs}.partial`, packedRefs);
  if (mirrorHead !== null && mirrorRefs.has(mirrorHead))
    await writeFile(
      path.join(gitDirectory, "refs", "remotes", "origin", "HEAD"),
      `ref: refs/remotes/origin/${mirrorHead.slice("refs/heads/".length)}\n`,
    );
}
