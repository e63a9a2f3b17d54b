/** A span of text `[start, end)` to replace with `[REDACTED:<ruleId>]`. */
export interface SecretRange {
  readonly start: number;
  readonly end: number;
  readonly ruleId: string;
}

/**
 * Overlapping or touching spans become one, named after the span that starts first (the longer
 * one on a tie), so a key inside an assignment inside a URL is replaced once, not piecemeal.
 */
export function mergeRanges(ranges: readonly SecretRange[]): SecretRange[] {
  const sorted = [...ranges].sort((left, right) => left.start - right.start || right.end - left.end);
  const merged: SecretRange[] = [];
  for (const range of sorted) {
    const last = merged[merged.length - 1];
    if (last !== undefined && range.start <= last.end) {
      if (range.end > last.end) merged[merged.length - 1] = { ...last, end: range.end };
    } else {
      merged.push(range);
    }
  }
  return merged;
}

export function redactionMarker(ruleId: string): string {
  return `[REDACTED:${ruleId}]`;
}

export function applyRanges(text: string, ranges: readonly SecretRange[]): string {
  if (ranges.length === 0) return text;
  const parts: string[] = [];
  let cursor = 0;
  for (const range of mergeRanges(ranges)) {
    parts.push(text.slice(cursor, range.start), redactionMarker(range.ruleId));
    cursor = range.end;
  }
  parts.push(text.slice(cursor));
  return parts.join("");
}
