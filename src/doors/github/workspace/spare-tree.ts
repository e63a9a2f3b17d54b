import { randomBytes } from "node:crypto";
import { mkdir, readFile, readdir, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { runHostGit, type HostGitOptions, type HostRepository } from "../../../core/git/index.js";
import { readCompleteCommit } from "./complete-commit-record.js";
import { makeTaskFolder } from "./make-task-folder.js";
import { readMirrorHead, readMirrorRefs } from "./read-mirror-refs.js";

/**
 * A spare is a task folder (`git/`, `tree/`) that host git wrote from the mirror after a task
 * ended, at the last commit whose every blob the mirror holds, and that no sandbox has seen.
 * The next checkout of that repository moves it into place and checks its commit out over it,
 * so only the files that differ are written. `ready` (the commit) is written last: a folder
 * without it is half made. A spare serves one task: it is claimed by a rename.
 */
const READY_FILE = "ready";
const SHA_PATTERN = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/** Where a cache keeps its spares: host-only, beside `mirrors/` and `workspaces/`. */
export function sparesDirOf(cacheDir: string): string {
  return path.join(cacheDir, "spares");
}

export interface SpareTreeOptions {
  /** `spares/` in the cache: private to the host, never mounted into a sandbox. */
  readonly sparesDir: string;
  readonly mirror: HostRepository;
  readonly gitOptions: HostGitOptions;
}

function spareFolderOf(options: Pick<SpareTreeOptions, "sparesDir" | "mirror">): string {
  return path.join(options.sparesDir, path.basename(options.mirror.gitDirectory));
}

async function readyCommitOf(folder: string): Promise<string | null> {
  try {
    const text = (await readFile(path.join(folder, READY_FILE), "utf8")).trim();
    return SHA_PATTERN.test(text) ? text : null;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/**
 * Moves the mirror's spare, if it has a whole one, to a new task folder under `workspacesDir`.
 * Returns the folder and the commit its tree and index stand at, or null. Call under the
 * mirror's lock.
 */
export async function claimSpareTree(
  options: SpareTreeOptions & { readonly workspacesDir: string },
): Promise<{ readonly folder: string; readonly headSha: string } | null> {
  const spare = spareFolderOf(options);
  const headSha = await readyCommitOf(spare);
  if (headSha === null) return null;
  // Its commit must still be one the mirror holds, else it is left to be written anew. Asked in
  // the spare's own git directory, which is no partial clone: the mirror would fetch lazily.
  const known = await runHostGit(
    { gitDirectory: path.join(spare, "git") },
    ["cat-file", "-e", `${headSha}^{commit}`],
    options.gitOptions,
  ).then(
    () => true,
    () => false,
  );
  if (!known) return null;
  await mkdir(options.workspacesDir, { recursive: true });
  const folder = path.join(options.workspacesDir, `task-${randomBytes(6).toString("hex")}`);
  try {
    await rename(spare, folder);
  } catch (error) {
    // Evicted meanwhile (eviction renames before it removes, so a spare is moved whole or not at all).
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  await rm(path.join(folder, READY_FILE), { force: true });
  return { folder, headSha };
}

/**
 * Writes a spare at the mirror's last complete commit, unless a whole one already stands there,
 * then keeps at most `keep` spares in the cache (the oldest go). The tree is written without the
 * mirror's lock (it only reads objects, and the mirror never drops one: `gc.auto=0`), so a
 * checkout of the same repository does not wait for it; only the spare's move into its place
 * runs under `underMirrorLock`. Call one at a time per mirror. Returns whether a spare was placed.
 */
export async function makeSpareTree(
  options: SpareTreeOptions & {
    readonly cloneUrl: string;
    readonly keep: number;
    readonly underMirrorLock: <T>(action: () => Promise<T>) => Promise<T>;
    /** Ends the write: its git processes are killed, the half-made folder removed, nothing placed. */
    readonly signal?: AbortSignal;
  },
): Promise<boolean> {
  const signal = options.signal;
  signal?.throwIfAborted();
  const gitOptions: HostGitOptions =
    signal === undefined ? options.gitOptions : { ...options.gitOptions, signal };
  const commit = await readCompleteCommit(options.mirror);
  if (commit === null) return false;
  const target = spareFolderOf(options);
  if ((await readyCommitOf(target)) === commit) return false;
  const partial = path.join(options.sparesDir, `.partial-${path.basename(target)}`);
  await rm(partial, { recursive: true, force: true });
  try {
    return await writeSpare({ ...options, gitOptions }, commit, target, partial);
  } finally {
    await rm(partial, { recursive: true, force: true });
  }
}

async function writeSpare(
  options: Parameters<typeof makeSpareTree>[0],
  commit: string,
  target: string,
  partial: string,
): Promise<boolean> {
  const [refs, mirrorHead] = await Promise.all([
    readMirrorRefs(options.mirror, options.gitOptions),
    readMirrorHead(options.mirror),
  ]);
  const made = await makeTaskFolder({
    workspacesDir: partial,
    mirror: options.mirror,
    mirrorRefs: refs,
    mirrorHead,
    cloneUrl: options.cloneUrl,
    sha: commit,
    objectsReady: Promise.resolve(true),
    gitOptions: options.gitOptions,
  });
  if (!made.success) return false;
  const { folder, repository } = made;
  // Git trusts an index entry's stat data only for files older than the index itself: written in
  // the same second, every file would be read again at the next checkout. Past that second, a
  // refresh writes the index anew, and the entries are clean without reading a file.
  const indexWritten = (await stat(path.join(repository.gitDirectory, "index"))).mtimeMs;
  await delay(Math.max(0, Math.ceil(indexWritten / 1000) * 1000 - Date.now() + 20), undefined, {
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  await runHostGit(repository, ["update-index", "-q", "--refresh"], options.gitOptions);
  await writeFile(path.join(folder, READY_FILE), `${commit}\n`);
  await options.underMirrorLock(async () => {
    options.signal?.throwIfAborted();
    await rm(target, { recursive: true, force: true });
    await rename(folder, target);
  });
  await keepNewest(options.sparesDir, options.keep);
  return true;
}

/** Removes all but the `keep` most recently written whole spares, and nothing half made. */
async function keepNewest(sparesDir: string, keep: number): Promise<void> {
  const names = (await readdir(sparesDir)).filter((name) => !name.startsWith("."));
  const dated = await Promise.all(
    names.map(async (name) => {
      const folder = path.join(sparesDir, name);
      const written = await stat(path.join(folder, READY_FILE)).then(
        (info) => info.mtimeMs,
        () => null,
      );
      return { folder, written };
    }),
  );
  const whole = dated.filter((entry) => entry.written !== null);
  whole.sort((left, right) => (right.written ?? 0) - (left.written ?? 0));
  await Promise.all(
    whole.slice(Math.max(0, keep)).map(async (entry) => {
      // Renamed first: a checkout claiming it meanwhile gets it whole, or finds it gone.
      const doomed = path.join(sparesDir, `.evicted-${randomBytes(6).toString("hex")}`);
      try {
        await rename(entry.folder, doomed);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
        throw error;
      }
      await rm(doomed, { recursive: true, force: true });
    }),
  );
}
