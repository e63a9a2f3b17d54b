import { hasGitSegment } from "../../paths/index.js";
import type { Dirent } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import ignore, { type Ignore } from "ignore";
import { hasCode, isMissingError, toPosix } from "./resolve-workspace-path.js";

export type WalkEntryType = "file" | "directory" | "symlink" | "other";

export interface WalkEntry {
  /** Relative to the workspace root, `/` separators. */
  readonly relative: string;
  readonly absolute: string;
  readonly type: WalkEntryType;
  /** 1 for a direct child of the start directory. */
  readonly depth: number;
}

export interface WalkStats {
  ignored: number;
  unreadable: number;
}

export interface WalkOptions {
  /** Real path of the workspace root. */
  readonly root: string;
  /** Real path of the directory to walk, inside the root. */
  readonly start: string;
  readonly maxDepth?: number;
  /** node_modules is skipped unless asked for: it is rarely wanted and often huge. */
  readonly includeNodeModules?: boolean;
  readonly signal?: AbortSignal;
  readonly stats?: WalkStats;
}

interface IgnoreLevel {
  /** Directory the rules belong to, relative to the root ("" for the root). */
  readonly base: string;
  readonly rules: Ignore;
}

/**
 * Walks the workspace depth-first in name order, honouring .gitignore files at every level
 * (and .git/info/exclude) the way git does: deeper files override shallower ones, and an
 * ignored directory is not entered. `.git` is never listed. Symlinks are reported, not followed,
 * so a walk can neither loop nor leave the workspace.
 */
export async function* walkWorkspace(options: WalkOptions): AsyncGenerator<WalkEntry> {
  let levels = await loadAncestorRules(options.root, options.start);
  const relativeStart = toPosix(path.relative(options.root, options.start));
  // Walking an ignored directory (node_modules, dist) is an explicit request to see inside it:
  // the rules above it would hide everything, so only the ignore files found inside apply.
  if (relativeStart !== "" && isIgnored(levels, relativeStart, true)) {
    levels = [];
  }
  yield* walkDirectory(options, options.start, levels, 1);
}

/** Whether a walk would skip this path because of .gitignore rules above it. */
export async function isIgnoredPath(root: string, relative: string, isDirectory: boolean): Promise<boolean> {
  const levels = await loadAncestorRules(root, path.join(root, relative));
  return isIgnored(levels, relative, isDirectory);
}

async function* walkDirectory(
  options: WalkOptions,
  directory: string,
  inheritedLevels: readonly IgnoreLevel[],
  depth: number,
): AsyncGenerator<WalkEntry> {
  if (options.signal?.aborted) {
    return;
  }
  let entries: Dirent[];
  try {
    entries = await readdir(directory, { withFileTypes: true });
  } catch (error) {
    if (isMissingError(error) || hasCode(error, "EACCES") || hasCode(error, "EPERM")) {
      if (options.stats) options.stats.unreadable += 1;
      return;
    }
    throw error;
  }
  const relativeDirectory = toPosix(path.relative(options.root, directory));
  let levels = inheritedLevels;
  if (entries.some((entry) => entry.name === ".gitignore" && entry.isFile())) {
    levels = [...levels, await loadRules(relativeDirectory, path.join(directory, ".gitignore"))];
  }
  entries.sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
  for (const entry of entries) {
    // The same names the write check treats as git's (`.GIT`, `.git.`, `.git `: one folder on
    // case-insensitive or Windows file systems), so what cannot be written is not listed either.
    if (hasGitSegment(entry.name)) {
      continue;
    }
    const type = entryType(entry);
    if (type === "directory" && entry.name === "node_modules" && options.includeNodeModules !== true) {
      continue;
    }
    const relative = relativeDirectory === "" ? entry.name : `${relativeDirectory}/${entry.name}`;
    if (isIgnored(levels, relative, type === "directory")) {
      if (options.stats) options.stats.ignored += 1;
      continue;
    }
    const absolute = path.join(directory, entry.name);
    yield { relative, absolute, type, depth };
    if (type === "directory" && depth < (options.maxDepth ?? Number.POSITIVE_INFINITY)) {
      yield* walkDirectory(options, absolute, levels, depth + 1);
    }
  }
}

function entryType(entry: Dirent): WalkEntryType {
  if (entry.isSymbolicLink()) return "symlink";
  if (entry.isDirectory()) return "directory";
  if (entry.isFile()) return "file";
  return "other";
}

function isIgnored(levels: readonly IgnoreLevel[], relative: string, isDirectory: boolean): boolean {
  let ignored = false;
  for (const level of levels) {
    if (level.base !== "" && !relative.startsWith(`${level.base}/`)) {
      continue;
    }
    const local = level.base === "" ? relative : relative.slice(level.base.length + 1);
    const result = level.rules.test(isDirectory ? `${local}/` : local);
    if (result.ignored) {
      ignored = true;
    } else if (result.unignored) {
      ignored = false;
    }
  }
  return ignored;
}

/** Rules of .git/info/exclude and of the .gitignore in every directory from the root down to `target`, exclusive. */
async function loadAncestorRules(root: string, target: string): Promise<IgnoreLevel[]> {
  const levels: IgnoreLevel[] = [await loadRules("", path.join(root, ".git", "info", "exclude"))];
  const segments = toPosix(path.relative(root, target))
    .split("/")
    .filter((segment) => segment !== "");
  let base = "";
  for (const segment of segments) {
    levels.push(await loadRules(base, path.join(root, base, ".gitignore")));
    base = base === "" ? segment : `${base}/${segment}`;
  }
  return levels;
}

async function loadRules(base: string, file: string): Promise<IgnoreLevel> {
  const rules = ignore();
  try {
    rules.add(await readFile(file, "utf8"));
  } catch (error) {
    // No ignore file at this level is the common case; a directory named .gitignore is ignored too.
    if (!isMissingError(error) && !hasCode(error, "EISDIR") && !hasCode(error, "EACCES")) {
      throw error;
    }
  }
  return { base, rules };
}
