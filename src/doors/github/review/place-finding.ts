import type { Finding } from "../../../core/review/index.js";
import type { DiffSide, ReviewableFile, ReviewHunk } from "./parse-diff-for-review.js";

/** Where GitHub will accept a comment: the fields of one entry of a review's `comments`. */
export interface InlinePlace {
  readonly kind: "inline";
  readonly path: string;
  readonly line: number;
  readonly side: DiffSide;
  readonly startLine?: number;
  /** The range the finding asked for, when it could not be kept (shown in the text instead). */
  readonly requestedRange?: readonly [number, number];
}

export type OutsideReason = "file-not-in-diff" | "binary-file" | "line-not-in-diff";

export type Placement = InlinePlace | { readonly kind: "outside"; readonly reason: OutsideReason };

function linesOn(hunk: ReviewHunk, side: DiffSide): ReadonlySet<number> {
  return side === "RIGHT" ? hunk.rightLines : hunk.leftLines;
}

function normalizePath(path: string): string {
  return path.replace(/^\.\//, "");
}

/**
 * Checks a finding against the diff the way GitHub does: `line` must be a commentable line on
 * its side, and a range's `start_line` must be before it, in the same hunk, on the same side.
 * A bad range falls back to a one-line comment on `line`; a bad line goes to the review body.
 */
export function placeFinding(finding: Finding, files: readonly ReviewableFile[]): Placement {
  const path = normalizePath(finding.path);
  const file = files.find((candidate) => candidate.path === path);
  if (file === undefined) return { kind: "outside", reason: "file-not-in-diff" };
  if (file.isBinary) return { kind: "outside", reason: "binary-file" };
  const side: DiffSide = finding.side ?? "RIGHT";
  const hunk = file.hunks.find((candidate) => linesOn(candidate, side).has(finding.line));
  if (hunk === undefined) return { kind: "outside", reason: "line-not-in-diff" };
  const single: InlinePlace = { kind: "inline", path, line: finding.line, side };
  const start = finding.startLine;
  if (start === undefined || start === finding.line) return single;
  if (start < finding.line && linesOn(hunk, side).has(start)) return { ...single, startLine: start };
  return { ...single, requestedRange: [Math.min(start, finding.line), Math.max(start, finding.line)] };
}
