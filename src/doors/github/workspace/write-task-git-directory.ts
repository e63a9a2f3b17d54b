import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { MirrorRef } from "./read-mirror-refs.js";

export interface TaskGitDirectoryOptions {
  readonly gitDirectory: string;
  readonly workTree: string;
  /** The mirror's `objects/`, borrowed through `objects/info/alternates`: nothing is copied. */
  readonly mirrorObjects: string;
  /** Stored as `origin`; never carries a credential. */
  readonly cloneUrl: string;
  /** HEAD until the checkout moves it: a commit the mirror holds. */
  readonly sha: string;
  /** The mirror's refs: branches become `refs/remotes/origin/*`, tags stay tags, as a clone makes them. */
  readonly mirrorRefs: ReadonlyMap<string, MirrorRef>;
  /** The branch the mirror's HEAD names (`refs/heads/main`), for `refs/remotes/origin/HEAD`. */
  readonly mirrorHead: string | null;
}

export type TaskGitDirectoryResult =
  { readonly success: true } | { readonly success: false; readonly error: string };

// eslint-disable-next-line no-control-regex -- a config value cannot hold a line break or NUL
const CONTROL_CHARACTERS = /[\x00-\x1f\x7f]/;

/** A config value in double quotes: backslashes and quotes escaped, so `;`, `#` and spaces stay literal. */
function quoteConfigValue(value: string): string {
  return `"${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

function packedRefsOf(options: TaskGitDirectoryOptions): string {
  const lines: [string, string][] = [];
  for (const ref of options.mirrorRefs.values()) {
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
 * Writes the task's git directory as `git clone --shared --no-checkout --separate-git-dir` would,
 * without starting git: a config naming `origin`, the mirror's objects as an alternate, its
 * branches as remote-tracking refs, HEAD at the commit, and the work tree's `.git` file. It is
 * not a partial clone (no `extensions.partialClone`, no promisor remote), so git there never
 * fetches: a missing object is an error at once.
 */
export async function writeTaskGitDirectory(
  options: TaskGitDirectoryOptions,
): Promise<TaskGitDirectoryResult> {
  if (CONTROL_CHARACTERS.test(options.cloneUrl))
    return { success: false, error: "the remote URL holds a control character" };
  const git = options.gitDirectory;
  await Promise.all(
    ["objects/info", "objects/pack", "refs/heads", "refs/tags", "refs/remotes/origin", "info"].map((folder) =>
      mkdir(path.join(git, folder), { recursive: true }),
    ),
  );
  await mkdir(options.workTree, { recursive: true });
  const config = [
    "[core]",
    "\trepositoryformatversion = 0",
    "\tfilemode = true",
    "\tbare = false",
    "\tlogallrefupdates = true",
    '[remote "origin"]',
    `\turl = ${quoteConfigValue(options.cloneUrl)}`,
    "\tfetch = +refs/heads/*:refs/remotes/origin/*",
    "",
  ].join("\n");
  const originHead =
    options.mirrorHead !== null && options.mirrorRefs.has(options.mirrorHead)
      ? `ref: refs/remotes/origin/${options.mirrorHead.slice("refs/heads/".length)}\n`
      : null;
  await Promise.all([
    writeFile(path.join(git, "config"), config),
    writeFile(path.join(git, "HEAD"), `${options.sha}\n`),
    writeFile(path.join(git, "objects", "info", "alternates"), `${options.mirrorObjects}\n`),
    writeFile(path.join(git, "packed-refs"), packedRefsOf(options)),
    writeFile(
      path.join(git, "description"),
      "Unnamed repository; edit this file 'description' to name the repository.\n",
    ),
    ...(originHead === null
      ? []
      : [writeFile(path.join(git, "refs", "remotes", "origin", "HEAD"), originHead)]),
    writeFile(path.join(options.workTree, ".git"), `gitdir: ${git}\n`),
  ]);
  return { success: true };
}
