import parseDiff from "parse-diff";
import type { FileChange } from "./judge-own-thread.js";

const NO_PATH = "/dev/null";

/**
 * What a diff did to `path`, in the old file's line numbers: the thread's lines are numbered in
 * the commit it was made on, which is the diff's old side. A file renamed away counts as deleted
 * (its lines are no longer where the finding pointed).
 */
export function readFileChange(diffText: string, path: string): FileChange {
  const file = parseDiff(diffText).find((candidate) => (candidate.from ?? candidate.to) === path);
  if (file === undefined) return { kind: "untouched" };
  if (file.deleted === true || file.to === NO_PATH || (file.to !== undefined && file.to !== path))
    return { kind: "deleted" };
  const changedLines = new Set<number>();
  const insertedAfter = new Set<number>();
  for (const chunk of file.chunks) {
    let previousOld = chunk.oldStart - 1;
    for (const change of chunk.changes) {
      if (change.content.startsWith("\\")) continue;
      switch (change.type) {
        case "del":
          changedLines.add(change.ln);
          previousOld = change.ln;
          break;
        case "normal":
          previousOld = change.ln1;
          break;
        case "add":
          insertedAfter.add(previousOld);
          break;
      }
    }
  }
  return { kind: "modified", changedLines, insertedAfter };
}
