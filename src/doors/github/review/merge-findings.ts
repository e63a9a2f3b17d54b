import { categoryRank, severityRank, type Finding } from "../../../core/review/index.js";
import { fingerprintFinding } from "./fingerprint-finding.js";

/** A finding after merging: the best-ranked report, what its duplicates added, its fingerprint. */
export interface MergedFinding {
  readonly finding: Finding;
  /** Every category that reported it, best first. */
  readonly categories: readonly string[];
  /** Text of duplicates that said something the kept finding did not. */
  readonly alsoNoted: readonly { readonly category: string; readonly body: string }[];
  readonly fingerprint: string;
}

const SIMILAR_TITLE_THRESHOLD = 0.5;

function compareFindings(left: Finding, right: Finding): number {
  return (
    severityRank(left.severity) - severityRank(right.severity) ||
    categoryRank(left.category) - categoryRank(right.category) ||
    left.path.localeCompare(right.path) ||
    left.line - right.line ||
    left.title.localeCompare(right.title)
  );
}

function wordsOf(text: string): Set<string> {
  return new Set(
    text
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter((word) => word.length > 0),
  );
}

/** Jaccard similarity of the title words, or containment of one title in the other. */
export function areTitlesSimilar(left: string, right: string): boolean {
  const a = left.toLowerCase().trim();
  const b = right.toLowerCase().trim();
  if (a === b || a.includes(b) || b.includes(a)) return true;
  const leftWords = wordsOf(a);
  const rightWords = wordsOf(b);
  const shared = [...leftWords].filter((word) => rightWords.has(word)).length;
  const union = new Set([...leftWords, ...rightWords]).size;
  return union > 0 && shared / union >= SIMILAR_TITLE_THRESHOLD;
}

function rangeOf(finding: Finding): [number, number] {
  const start =
    finding.startLine !== undefined && finding.startLine < finding.line ? finding.startLine : finding.line;
  return [start, finding.line];
}

function isDuplicate(kept: Finding, candidate: Finding): boolean {
  if (kept.path !== candidate.path || (kept.side ?? "RIGHT") !== (candidate.side ?? "RIGHT")) return false;
  const [keptStart, keptEnd] = rangeOf(kept);
  const [start, end] = rangeOf(candidate);
  return start <= keptEnd && keptStart <= end && areTitlesSimilar(kept.title, candidate.title);
}

/**
 * Ranks findings (severity, then category: security before correctness before tests ...) and
 * folds duplicates (same file and side, overlapping lines, similar title) into the best-ranked
 * one, keeping the text the others added.
 */
export function mergeFindings(findings: readonly Finding[]): MergedFinding[] {
  const ranked = [...findings].sort(compareFindings);
  const groups: {
    finding: Finding;
    categories: string[];
    alsoNoted: { category: string; body: string }[];
  }[] = [];
  for (const finding of ranked) {
    const group = groups.find((candidate) => isDuplicate(candidate.finding, finding));
    if (group === undefined) {
      groups.push({ finding, categories: [finding.category], alsoNoted: [] });
      continue;
    }
    if (!group.categories.includes(finding.category)) group.categories.push(finding.category);
    const body = finding.body.trim();
    const known = [group.finding.body, ...group.alsoNoted.map((note) => note.body)].map((text) =>
      text.trim(),
    );
    if (body.length > 0 && !known.includes(body)) group.alsoNoted.push({ category: finding.category, body });
  }
  return groups.map((group) => ({ ...group, fingerprint: fingerprintFinding(group.finding) }));
}
