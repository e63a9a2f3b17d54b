import { SEVERITIES, type Finding, type Severity } from "../../../core/review/index.js";
import { mergeFindings, type MergedFinding } from "./merge-findings.js";
import type { DiffSide, ReviewableFile } from "./parse-diff-for-review.js";
import { placeFinding } from "./place-finding.js";
import { neutralizeMarkdown, renderBodyFinding, renderCommentBody } from "./render-review-text.js";

export const DEFAULT_MAX_COMMENTS = 30;
/** GitHub refuses a review body over 65,536 characters; keep room for what the caller adds. */
const MAX_BODY_CHARS = 60_000;
export const REVIEW_MARKER = "<!-- agentforge:review -->";

/** One entry of the `comments` array of POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews. */
export interface ReviewComment {
  readonly path: string;
  readonly line: number;
  readonly side: DiffSide;
  readonly start_line?: number;
  readonly start_side?: DiffSide;
  readonly body: string;
}

export interface BuiltReview {
  readonly body: string;
  readonly comments: readonly ReviewComment[];
  /** Findings that went into the body because GitHub would refuse them as inline comments. */
  readonly outsideDiff: readonly MergedFinding[];
  /** Findings below `minSeverity`: in one collapsed section of the body, never inline. */
  readonly belowThreshold: readonly MergedFinding[];
  /** Findings already posted on this pull request by an earlier run. */
  readonly skippedAsPosted: number;
  /** Lower-ranked findings left out by the cap. */
  readonly omittedByCap: number;
  /** Findings that were duplicates of another one. */
  readonly mergedDuplicates: number;
}

export interface BuildReviewOptions {
  readonly findings: readonly Finding[];
  /** The pull request's whole diff (base...head): GitHub checks comment lines against it. */
  readonly files: readonly ReviewableFile[];
  /** Most findings to report, inline and in the body together. */
  readonly maxComments?: number;
  readonly previousFingerprints?: ReadonlySet<string>;
  /** A sentence or two above the findings, e.g. what was reviewed. */
  readonly summary?: string;
  /** `review.min_severity`: less severe findings are folded away instead of posted on lines. */
  readonly minSeverity?: Severity;
  /** This bot's earlier finding threads it resolved as fixed by the commits up to `headSha`. */
  readonly resolvedEarlier?: {
    readonly headSha: string;
    readonly threads: readonly { readonly path: string; readonly title: string; readonly url: string }[];
  };
}

/** True when `severity` is at least as severe as `minimum` (SEVERITIES runs from most severe). */
function meetsSeverity(severity: Severity, minimum: Severity | undefined): boolean {
  return minimum === undefined || SEVERITIES.indexOf(severity) <= SEVERITIES.indexOf(minimum);
}

function countBySeverity(findings: readonly MergedFinding[]): string {
  const counts = SEVERITIES.map((severity: Severity) => ({
    severity,
    count: findings.filter((merged) => merged.finding.severity === severity).length,
  })).filter((entry) => entry.count > 0);
  return counts.map((entry) => `${entry.count} ${entry.severity}`).join(", ");
}

function renderBody(
  options: BuildReviewOptions,
  reported: readonly MergedFinding[],
  outside: readonly MergedFinding[],
  below: readonly MergedFinding[],
  omittedByCap: number,
  skippedAsPosted: number,
): string {
  const parts: string[] = [];
  const tally =
    reported.length === 0
      ? "no new findings"
      : `${reported.length} finding${reported.length === 1 ? "" : "s"} (${countBySeverity(reported)})`;
  parts.push(`### AgentForge review: ${tally}`);
  if (options.summary !== undefined && options.summary.trim().length > 0)
    parts.push(neutralizeMarkdown(options.summary.trim()));
  const resolved = options.resolvedEarlier;
  if (resolved !== undefined && resolved.threads.length > 0) parts.push(renderResolved(resolved));
  if (outside.length > 0) {
    const items = renderBodyItems(outside, parts.join("\n\n").length);
    parts.push(`#### Findings outside the diff\n\n${items.join("\n")}`);
  }
  if (below.length > 0) {
    const items = renderBodyItems(below, parts.join("\n\n").length);
    const count = `${below.length} finding${below.length === 1 ? "" : "s"}`;
    parts.push(
      `<details>\n<summary>${count} below ${options.minSeverity ?? "the"} severity (review.min_severity)</summary>\n\n${items.join("\n")}\n\n</details>`,
    );
  }
  const notes: string[] = [];
  if (omittedByCap > 0)
    notes.push(
      `${omittedByCap} lower-ranked finding${omittedByCap === 1 ? " was" : "s were"} left out (limit ${options.maxComments ?? DEFAULT_MAX_COMMENTS}).`,
    );
  if (skippedAsPosted > 0)
    notes.push(
      `${skippedAsPosted} finding${skippedAsPosted === 1 ? "" : "s"} already reported earlier ${skippedAsPosted === 1 ? "is" : "are"} not repeated.`,
    );
  if (notes.length > 0) parts.push(`_${notes.join(" ")}_`);
  parts.push(REVIEW_MARKER);
  return parts.join("\n\n");
}

/**
 * Turns reviewer findings into one review: merged, ranked, stripped of what an earlier run
 * posted, capped, and split between inline comments GitHub will accept and the body.
 */
export function buildReview(options: BuildReviewOptions): BuiltReview {
  const maxComments = options.maxComments ?? DEFAULT_MAX_COMMENTS;
  const previous = options.previousFingerprints ?? new Set<string>();
  const merged = mergeFindings(options.findings);
  const unseen = merged.filter((entry) => !previous.has(entry.fingerprint));
  const fresh = unseen.filter((entry) => meetsSeverity(entry.finding.severity, options.minSeverity));
  const below = unseen.filter((entry) => !meetsSeverity(entry.finding.severity, options.minSeverity));
  const reported = fresh.slice(0, Math.max(0, maxComments));
  const comments: ReviewComment[] = [];
  const outside: MergedFinding[] = [];
  for (const entry of reported) {
    const place = placeFinding(entry.finding, options.files);
    if (place.kind === "outside") {
      outside.push(entry);
      continue;
    }
    comments.push({
      path: place.path,
      line: place.line,
      side: place.side,
      ...(place.startLine === undefined ? {} : { start_line: place.startLine, start_side: place.side }),
      body: renderCommentBody(entry, place),
    });
  }
  const omittedByCap = fresh.length - reported.length;
  const skippedAsPosted = merged.length - unseen.length;
  return {
    body: renderBody(options, reported, outside, below, omittedByCap, skippedAsPosted),
    comments,
    outsideDiff: outside,
    belowThreshold: below,
    skippedAsPosted,
    omittedByCap,
    mergedDuplicates: options.findings.length - merged.length,
  };
}

function renderResolved(resolved: NonNullable<BuildReviewOptions["resolvedEarlier"]>): string {
  const count = resolved.threads.length;
  const items = resolved.threads.map((thread) => {
    const path = neutralizeMarkdown(thread.path).replace(/`/g, "'");
    // Titles come from this bot's own comments, which were neutralized when posted.
    const title = neutralizeMarkdown(thread.title).replace(/[[\]]/g, "");
    return `- \`${path}\`: [${title}](${thread.url})`;
  });
  return `Resolved ${count} earlier finding${count === 1 ? "" : "s"} fixed by ${resolved.headSha.slice(0, 7)}:\n\n${items.join("\n")}`;
}

/** The findings as body list items, cut with a note where the body would pass its size limit. */
function renderBodyItems(
  findings: readonly Parameters<typeof renderBodyFinding>[0][],
  used: number,
): string[] {
  const items: string[] = [];
  let length = used;
  for (const merged of findings) {
    const item = renderBodyFinding(merged);
    if (length + item.length > MAX_BODY_CHARS) {
      items.push(
        `- …and ${findings.length - items.length} more not shown (the review body has a size limit).`,
      );
      break;
    }
    items.push(item);
    length += item.length + 1;
  }
  return items;
}
