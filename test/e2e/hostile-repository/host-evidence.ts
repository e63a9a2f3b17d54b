import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import path from "node:path";

/** Every entry under a folder with its kind, mode and content digest: what "unchanged" means here. */
export type FolderSnapshot = Readonly<Record<string, string>>;

export function snapshotFolder(root: string): FolderSnapshot {
  const result: Record<string, string> = {};
  if (!existsSync(root)) return result;
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    const full = path.join(entry.parentPath, entry.name);
    const relative = path.relative(root, full);
    const info = lstatSync(full);
    if (info.isSymbolicLink()) result[relative] = `link:${readlinkSync(full)}`;
    else if (info.isDirectory()) result[relative] = `dir:${(info.mode & 0o7777).toString(8)}`;
    else if (info.isFile())
      result[relative] = `file:${(info.mode & 0o7777).toString(8)}:${createHash("sha256")
        .update(readFileSync(full))
        .digest("hex")}`;
    else result[relative] = "other";
  }
  return result;
}

export interface SnapshotDifference {
  readonly added: readonly string[];
  readonly removed: readonly string[];
  readonly changed: readonly string[];
}

export function diffSnapshots(before: FolderSnapshot, after: FolderSnapshot): SnapshotDifference {
  const added = Object.keys(after).filter((key) => !(key in before));
  const removed = Object.keys(before).filter((key) => !(key in after));
  const changed = Object.keys(after).filter((key) => key in before && before[key] !== after[key]);
  return { added: added.sort(), removed: removed.sort(), changed: changed.sort() };
}

/** What the planted program left in the host's marker folder: empty unless it ran on the host. */
export function listMarkers(markers: string): string[] {
  return existsSync(markers) ? readdirSync(markers).sort() : [];
}

/** Files under `root` whose bytes contain any of `needles` (paths relative to root). */
export function filesMentioning(root: string, needles: readonly string[]): string[] {
  if (!existsSync(root)) return [];
  const hits: string[] = [];
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    const content = readFileSync(full);
    if (needles.some((needle) => content.includes(needle))) hits.push(path.relative(root, full));
  }
  return hits.sort();
}

/** The task folders (`tree/` and `git/` side by side) of an App's or eval's data under `parent`. */
export function listFolders(parent: string, prefix: string): string[] {
  if (!existsSync(parent)) return [];
  return readdirSync(parent)
    .filter((name) => name.startsWith(prefix))
    .map((name) => path.join(parent, name))
    .sort();
}

/** The test's own git over a bare repository it owns (the stand-in's). */
export function bareGit(bareDir: string, args: readonly string[]): string {
  return execFileSync("git", args, {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    env: {
      PATH: process.env.PATH,
      HOME: "/nonexistent",
      GIT_DIR: bareDir,
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
    },
  });
}

export interface TreeEntry {
  readonly mode: string;
  readonly type: string;
  readonly object: string;
  readonly path: string;
}

/** Every entry of a commit's tree, recursively (gitlinks show as mode 160000, type commit). */
export function readCommitTree(bareDir: string, commit: string): TreeEntry[] {
  return bareGit(bareDir, ["ls-tree", "-r", "-z", "--full-tree", commit])
    .split("\0")
    .filter((line) => line !== "")
    .map((line) => {
      const tab = line.indexOf("\t");
      const [mode, type, object] = line.slice(0, tab).split(" ") as [string, string, string];
      return { mode, type, object, path: line.slice(tab + 1) };
    });
}

export interface CommitFile extends TreeEntry {
  readonly content: Buffer;
}

/** Every file of a commit with its bytes, read with one `git cat-file --batch`. */
export function readCommitFiles(bareDir: string, commit: string): Map<string, CommitFile> {
  const entries = readCommitTree(bareDir, commit);
  const output = execFileSync("git", ["cat-file", "--batch"], {
    input: entries.map((entry) => `${entry.object}\n`).join(""),
    maxBuffer: 256 * 1024 * 1024,
    env: {
      PATH: process.env.PATH,
      HOME: "/nonexistent",
      GIT_DIR: bareDir,
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
    },
  });
  const files = new Map<string, CommitFile>();
  let offset = 0;
  for (const entry of entries) {
    // "<object> <type> <size>\n<content>\n"
    const headerEnd = output.indexOf(0x0a, offset);
    const size = Number(output.subarray(offset, headerEnd).toString("latin1").split(" ")[2]);
    files.set(entry.path, { ...entry, content: output.subarray(headerEnd + 1, headerEnd + 1 + size) });
    offset = headerEnd + 1 + size + 1;
  }
  return files;
}

/** The objects a commit brought that its base did not have: all the App's own commit may add. */
export function objectsIntroduced(bareDir: string, commit: string, base: string): Set<string> {
  return new Set(
    bareGit(bareDir, ["rev-list", "--objects", commit, "--not", base])
      .split("\n")
      .map((line) => line.split(" ")[0]!)
      .filter((id) => id !== ""),
  );
}

/** The ids of the loose objects a snapshot of a git directory lists (`objects/ab/cdef…`). */
export function looseObjectsOf(snapshot: FolderSnapshot): Set<string> {
  const ids = new Set<string>();
  for (const [key, value] of Object.entries(snapshot)) {
    const match = /^objects\/([0-9a-f]{2})\/([0-9a-f]{38,62})$/.exec(key);
    if (match !== null && value.startsWith("file:")) ids.add(`${match[1]}${match[2]}`);
  }
  return ids;
}

/** The names of the secrets whose value (in any of its forms) appears in `text`. */
export function secretsIn(text: string, secrets: Readonly<Record<string, readonly string[]>>): string[] {
  return Object.entries(secrets)
    .filter(([, forms]) => forms.some((form) => text.includes(form)))
    .map(([name]) => name);
}

/** Every file under a folder, read as text (for secret scans of traces and run records). */
export function readAllText(root: string): string {
  if (!existsSync(root)) return "";
  const parts: string[] = [];
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) parts.push(readFileSync(path.join(entry.parentPath, entry.name), "utf8"));
  }
  return parts.join("\n");
}

/**
 * The options of the mount at `mountPoint` in a `/proc/self/mountinfo` dump (the last one: later
 * mounts cover earlier ones), or undefined when nothing is mounted there.
 */
export function mountOptions(mountinfo: string, mountPoint: string): string[] | undefined {
  let options: string[] | undefined;
  for (const line of mountinfo.split("\n")) {
    const fields = line.split(" ");
    if (fields[4]?.replaceAll("\\040", " ") === mountPoint) options = fields[5]?.split(",") ?? [];
  }
  return options;
}
