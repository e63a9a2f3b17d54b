import type { Finding } from "../../../core/review/index.js";
import { fingerprintMarker } from "./fingerprint-finding.js";
import type { MergedFinding } from "./merge-findings.js";
import type { InlinePlace } from "./place-finding.js";

/**
 * Model text is untrusted: it must not forge our hidden markers (an HTML comment), hide text in
 * one, or notify people with @-mentions.
 */
export function neutralizeMarkdown(text: string): string {
  return text
    .replace(/<!--/g, "&lt;!--")
    .replace(/-->/g, "--&gt;")
    .replace(/(^|[^\w`])@(?=[A-Za-z0-9])/g, "$1@\u200b");
}

/** A fence longer than any run of backticks in the text, so the text cannot close it. */
function fenceFor(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  return "`".repeat(longest + 1);
}

function headingOf(finding: Finding, categories: readonly string[]): string {
  const labels = categories.map((category) => neutralizeMarkdown(category)).join(", ");
  return `**${finding.severity.toUpperCase()} · ${neutralizeMarkdown(finding.title)}** _(${labels})_`;
}

function alsoNotedText(merged: MergedFinding): string[] {
  return merged.alsoNoted.map(
    (note) => `_Also noted (${neutralizeMarkdown(note.category)}):_ ${neutralizeMarkdown(note.body)}`,
  );
}

/** The body of one inline comment. */
export function renderCommentBody(merged: MergedFinding, place: InlinePlace): string {
  const { finding } = merged;
  const parts = [headingOf(finding, merged.categories)];
  if (place.requestedRange !== undefined) {
    parts.push(`_Lines ${place.requestedRange[0]}–${place.requestedRange[1]}._`);
  }
  if (finding.body.trim().length > 0) parts.push(neutralizeMarkdown(finding.body.trim()));
  parts.push(...alsoNotedText(merged));
  // A suggestion replaces exactly the commented lines, so only a range we kept may carry one.
  if (finding.suggestion !== undefined && place.side === "RIGHT" && place.requestedRange === undefined) {
    const fence = fenceFor(finding.suggestion);
    parts.push(`${fence}suggestion\n${finding.suggestion.replace(/\n$/, "")}\n${fence}`);
  }
  parts.push(fingerprintMarker(merged.fingerprint));
  return parts.join("\n\n");
}

/** One finding as a list item of the review body, for a line the diff does not show. */
export function renderBodyFinding(merged: MergedFinding): string {
  const { finding } = merged;
  const range =
    finding.startLine !== undefined && finding.startLine < finding.line
      ? `${finding.startLine}-${finding.line}`
      : `${finding.line}`;
  const location = `\`${neutralizeMarkdown(finding.path).replace(/`/g, "'")}:${range}\``;
  const lines = [`- ${headingOf(finding, merged.categories)} at ${location}`];
  const detail = [finding.body.trim(), ...merged.alsoNoted.map((note) => `(${note.category}) ${note.body}`)]
    .filter((text) => text.length > 0)
    .map((text) => neutralizeMarkdown(text).replace(/\n/g, "\n  "));
  lines.push(...detail.map((text) => `  ${text}`));
  lines.push(`  ${fingerprintMarker(merged.fingerprint)}`);
  return lines.join("\n");
}

/** The finding's title from one of this bot's inline comments (its `**SEVERITY · title**` heading). */
export function titleOfCommentBody(body: string): string {
  const heading = /^\*\*[A-Z]+ · (.+?)\*\*/.exec(body);
  return heading?.[1] ?? "finding";
}
