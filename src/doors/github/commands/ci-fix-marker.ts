/**
 * Every comment of a "fix ci" attempt carries a hidden marker: `automatic` for one the bot started
 * on its own (these are counted against `ci.max_fix_attempts`), `requested` for one a person asked
 * for (never counted), and `stopped` on the one comment that says the automatic attempts are over.
 * Markers are read only from the bot's own comments (`readCiFixHistory`).
 */
export type CiFixMarkerKind = "automatic" | "requested" | "stopped";

export interface CiFixMarker {
  readonly kind: CiFixMarkerKind;
  /** The pull request head the attempt started from (or the stop was said about). */
  readonly headSha: string;
}

const MARKER = /<!-- agentforge:fix-ci (automatic|requested|stopped) head=([0-9a-f]{7,64}) -->/g;

export function renderCiFixMarker(marker: CiFixMarker): string {
  return `<!-- agentforge:fix-ci ${marker.kind} head=${marker.headSha} -->`;
}

export function readCiFixMarkers(body: string): CiFixMarker[] {
  return [...body.matchAll(MARKER)].map((match) => ({
    kind: match[1] as CiFixMarkerKind,
    headSha: match[2]!,
  }));
}

/** Appends the marker to a text unless it is there already (a progress comment is rewritten whole). */
export function withCiFixMarker(text: string, marker: CiFixMarker): string {
  const rendered = renderCiFixMarker(marker);
  return text.includes(rendered) ? text : `${text}\n\n${rendered}`;
}
