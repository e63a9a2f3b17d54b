import { lstat, readdir } from "node:fs/promises";
import path from "node:path";
import { isMissingError } from "./resolve-workspace-path.js";
import { stringSimilarity } from "./string-similarity.js";
import { walkWorkspace } from "./walk-workspace.js";

/** Entries looked at across the workspace before giving up: suggestions must stay cheap. */
const MAX_SCANNED_ENTRIES = 20_000;
const MINIMUM_SCORE = 0.5;

/**
 * Existing paths that look like the one the model asked for: names near it in the nearest
 * existing directory, and files with a similar name anywhere in the workspace.
 */
export async function findSimilarPaths(root: string, missingRelative: string, limit = 5): Promise<string[]> {
  const wantedName = path.posix.basename(missingRelative).toLowerCase();
  const scores = new Map<string, number>();
  const remember = (relative: string, score: number): void => {
    if (score >= MINIMUM_SCORE && score > (scores.get(relative) ?? 0)) {
      scores.set(relative, score);
    }
  };

  const nearest = await nearestExistingDirectory(root, path.posix.dirname(missingRelative));
  for (const name of await readNamesIfPresent(path.join(root, nearest))) {
    const relative = nearest === "." ? name : `${nearest}/${name}`;
    // A near name in the same directory is the likeliest intent, so it gets a small bonus.
    remember(relative, nameScore(wantedName, name.toLowerCase()) + 0.05);
  }

  let scanned = 0;
  for await (const entry of walkWorkspace({ root, start: root })) {
    scanned += 1;
    if (scanned > MAX_SCANNED_ENTRIES) break;
    if (entry.type === "directory") continue;
    const name = path.posix.basename(entry.relative).toLowerCase();
    const score = nameScore(wantedName, name);
    if (score >= MINIMUM_SCORE) {
      remember(entry.relative, score * 0.8 + stringSimilarity(missingRelative, entry.relative) * 0.2);
    }
  }

  return [...scores.entries()]
    .sort((left, right) => right[1] - left[1] || (left[0] < right[0] ? -1 : 1))
    .slice(0, limit)
    .map(([relative]) => relative);
}

function nameScore(wanted: string, candidate: string): number {
  if (wanted === candidate) return 1;
  const wantedStem = stem(wanted);
  // Same name with another extension (index.js for index.ts) is a very common slip.
  if (wantedStem !== "" && wantedStem === stem(candidate)) return 0.9;
  return stringSimilarity(wanted, candidate);
}

function stem(name: string): string {
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(0, dot) : name;
}

/** A folder's names; none when it vanished since it was found (a command may be changing the tree). */
async function readNamesIfPresent(directory: string): Promise<string[]> {
  try {
    return await readdir(directory);
  } catch (error) {
    if (isMissingError(error)) return [];
    throw error;
  }
}

async function nearestExistingDirectory(root: string, relativeDirectory: string): Promise<string> {
  let current = relativeDirectory;
  for (;;) {
    try {
      // lstat: a link to a folder (maybe outside the workspace) is not listed for suggestions.
      if ((await lstat(path.join(root, current))).isDirectory()) return current;
    } catch (error) {
      if (!isMissingError(error)) throw error;
    }
    if (current === "." || current === "") return ".";
    current = path.posix.dirname(current);
  }
}
