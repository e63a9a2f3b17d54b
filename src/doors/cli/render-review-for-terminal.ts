import { SEVERITIES, type Severity } from "../../core/review/index.js";
import type { MergedFinding } from "../github/review/merge-findings.js";

/** A finding as `review --json` lists it: once, with every reviewer concern that reported it. */
export interface ListedFinding {
  readonly path: string;
  readonly line: number;
  readonly startLine?: number;
  readonly severity: Severity;
  readonly category: string;
  readonly reportedAs: readonly string[];
  readonly title: string;
  readonly body: string;
  readonly suggestion?: string;
  readonly alsoNoted: readonly { readonly category: string; readonly body: string }[];
}

export function listFinding(merged: MergedFinding): ListedFinding {
  const { finding } = merged;
  return {
    path: finding.path,
    line: finding.line,
    ...(finding.startLine === undefined ? {} : { startLine: finding.startLine }),
    severity: finding.severity,
    category: finding.category,
    reportedAs: merged.categories,
    title: finding.title,
    body: finding.body,
    ...(finding.suggestion === undefined ? {} : { suggestion: finding.suggestion }),
    alsoNoted: merged.alsoNoted,
  };
}

/**
 * Plain text for a terminal: one block per finding, worst first, no markdown or hidden markers.
 * The text is model output, so control characters (escape sequences that could move the cursor
 * or rewrite earlier lines) are shown as `?`.
 */
export function renderReviewForTerminal(findings: readonly ListedFinding[], reviewed: string): string {
  if (findings.length === 0) return `No findings in ${reviewed}.\n`;
  const counts = SEVERITIES.map((severity) => ({
    severity,
    count: findings.filter((finding) => finding.severity === severity).length,
  }))
    .filter((entry) => entry.count > 0)
    .map((entry) => `${entry.count} ${entry.severity}`)
    .join(", ");
  const lines = [
    `${findings.length} finding${findings.length === 1 ? "" : "s"} (${counts}) in ${reviewed}`,
    "",
  ];
  for (const finding of findings) {
    const where = `${printable(finding.path)}:${finding.startLine !== undefined && finding.startLine < finding.line ? `${finding.startLine}-` : ""}${finding.line}`;
    lines.push(
      `${finding.severity.toUpperCase()}  ${where}  ${printable(finding.reportedAs.join(", "))}  ${printable(finding.title)}`,
    );
    lines.push(...indent(finding.body));
    for (const note of finding.alsoNoted) lines.push(...indent(`(${note.category}) ${note.body}`));
    if (finding.suggestion !== undefined)
      lines.push("    suggested replacement:", ...indent(finding.suggestion, 6));
    lines.push("");
  }
  return `${lines.join("\n")}`;
}

/** True when a finding is at `threshold` or worse (critical is the worst). */
export function isAtOrAbove(severity: Severity, threshold: Severity): boolean {
  return SEVERITIES.indexOf(severity) <= SEVERITIES.indexOf(threshold);
}

function indent(text: string, spaces = 4): string[] {
  return printable(text.trimEnd())
    .split("\n")
    .map((line) => `${" ".repeat(spaces)}${line}`);
}

function printable(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is replaced
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, "?");
}
