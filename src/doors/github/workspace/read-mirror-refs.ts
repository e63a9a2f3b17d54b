import { readFile } from "node:fs/promises";
import path from "node:path";
import { runHostGit, type HostGitOptions, type HostRepository } from "../../../core/git/index.js";

export interface MirrorRef {
  readonly name: string;
  /** What the ref names: a commit for a branch, a tag object for an annotated tag. */
  readonly objectId: string;
  /** The commit the ref stands for (an annotated tag peeled once), or null if it names no commit. */
  readonly commit: string | null;
  /** The peeled object of an annotated tag, as packed-refs records it; null for other refs. */
  readonly peeledId: string | null;
}

/** `%(objectname) %(objecttype) %(*objectname) %(*objecttype) %(refname)`; the `*` fields are empty for non-tags. */
const REF_LINE = /^([0-9a-f]+) ([a-z]+) ([0-9a-f]*) ([a-z]*) (\S+)$/;

/**
 * Every ref of the mirror in one git process: what a checkout resolves its ref, its work branch
 * and its diff bases from, and what the task folder's remote-tracking refs are copied from.
 */
export async function readMirrorRefs(
  mirror: HostRepository,
  options: HostGitOptions,
): Promise<ReadonlyMap<string, MirrorRef>> {
  const { stdout } = await runHostGit(
    mirror,
    ["for-each-ref", "--format=%(objectname) %(objecttype) %(*objectname) %(*objecttype) %(refname)"],
    options,
  );
  const refs = new Map<string, MirrorRef>();
  for (const line of stdout.split("\n")) {
    const match = REF_LINE.exec(line);
    if (match === null) continue;
    const [, objectId = "", type, peeledId = "", peeledType, name = ""] = match;
    const commit = type === "commit" ? objectId : peeledType === "commit" ? peeledId : null;
    refs.set(name, { name, objectId, commit, peeledId: peeledId === "" ? null : peeledId });
  }
  return refs;
}

/** The branch the mirror's HEAD names (`ref: refs/heads/main`), or null when HEAD is detached or unreadable. */
export async function readMirrorHead(mirror: HostRepository): Promise<string | null> {
  const text = await readFile(path.join(mirror.gitDirectory, "HEAD"), "utf8");
  const match = /^ref: (refs\/heads\/\S+)\n?$/.exec(text);
  return match?.[1] ?? null;
}
