import parseDiff from "parse-diff";

export type DiffSide = "LEFT" | "RIGHT";

/** One `@@` hunk and the lines GitHub lets a review comment point at in it. */
export interface ReviewHunk {
  readonly header: string;
  readonly oldStart: number;
  readonly newStart: number;
  /** New-file line numbers of added and context lines. */
  readonly rightLines: ReadonlySet<number>;
  /** Old-file line numbers of deleted lines. */
  readonly leftLines: ReadonlySet<number>;
  /** The hunk as text with new-file line numbers, for a reviewer to read. */
  readonly numberedText: string;
}

export type ReviewableFileStatus = "added" | "deleted" | "modified" | "renamed";

export interface ReviewableFile {
  /** The path GitHub knows the file by in the pull request: the new path, or the old one if deleted. */
  readonly path: string;
  /** The old path of a renamed file. */
  readonly previousPath: string | null;
  readonly status: ReviewableFileStatus;
  /** Binary files and pure renames have no lines to comment on. */
  readonly isBinary: boolean;
  readonly hunks: readonly ReviewHunk[];
  readonly additions: number;
  readonly deletions: number;
}

const NO_PATH = "/dev/null";
/** parse-diff skips git's binary notice; the paths are read from it here. */
const BINARY_NOTICE = /^Binary files (?:a\/(.+?)|\/dev\/null) and (?:b\/(.+?)|\/dev\/null) differ$/gm;

function binaryPathsOf(diffText: string): Set<string> {
  const paths = new Set<string>();
  for (const match of diffText.matchAll(BINARY_NOTICE)) {
    if (match[1] !== undefined) paths.add(match[1]);
    if (match[2] !== undefined) paths.add(match[2]);
  }
  return paths;
}

function statusOf(file: parseDiff.File): ReviewableFileStatus {
  if (file.new === true || file.from === NO_PATH) return "added";
  if (file.deleted === true || file.to === NO_PATH) return "deleted";
  if (file.from !== undefined && file.to !== undefined && file.from !== file.to) return "renamed";
  return "modified";
}

function hunkOf(chunk: parseDiff.Chunk): ReviewHunk {
  const rightLines = new Set<number>();
  const leftLines = new Set<number>();
  const numbered: string[] = [chunk.content];
  for (const change of chunk.changes) {
    // "\ No newline at end of file" is a marker, not a line of either file.
    if (change.content.startsWith("\\")) continue;
    switch (change.type) {
      case "add":
        rightLines.add(change.ln);
        numbered.push(`${String(change.ln).padStart(5)} ${change.content}`);
        break;
      case "normal":
        rightLines.add(change.ln2);
        numbered.push(`${String(change.ln2).padStart(5)} ${change.content}`);
        break;
      case "del":
        leftLines.add(change.ln);
        numbered.push(`${" ".repeat(5)} ${change.content}`);
        break;
    }
  }
  return {
    header: chunk.content,
    oldStart: chunk.oldStart,
    newStart: chunk.newStart,
    rightLines,
    leftLines,
    numberedText: numbered.join("\n"),
  };
}

/**
 * Splits a unified diff (as `git diff` prints it) by file and hunk, with the lines on each side
 * that a review comment may point at. GitHub answers 422 for a comment on any other line, so
 * these sets are what `buildReview` checks findings against.
 */
export function parseDiffForReview(diffText: string): ReviewableFile[] {
  const binaryPaths = binaryPathsOf(diffText);
  return parseDiff(diffText).flatMap((file): ReviewableFile[] => {
    const status = statusOf(file);
    const path = status === "deleted" ? file.from : file.to;
    if (path === undefined || path === NO_PATH) return [];
    const isBinary = file.chunks.length === 0 && binaryPaths.has(path);
    return [
      {
        path,
        previousPath: status === "renamed" ? (file.from ?? null) : null,
        status,
        isBinary,
        hunks: file.chunks.map(hunkOf),
        additions: file.additions,
        deletions: file.deletions,
      },
    ];
  });
}

export function rightLinesOf(file: ReviewableFile): Set<number> {
  return new Set(file.hunks.flatMap((hunk) => [...hunk.rightLines]));
}

export function leftLinesOf(file: ReviewableFile): Set<number> {
  return new Set(file.hunks.flatMap((hunk) => [...hunk.leftLines]));
}
