/** Number and time formats for the report; fixed locale so the page reads the same everywhere. */
export function formatInteger(value: number): string {
  return Math.round(value).toLocaleString("en-US");
}

/** A cost, or "cost unknown" when the model had no price: never "$0". */
export function formatCost(value: number | null): string {
  if (value === null) return "cost unknown";
  return `$${value.toFixed(Math.abs(value) < 1 ? 4 : 2)}`;
}

export function formatCompactTokens(value: number): string {
  if (Math.abs(value) >= 1_000_000) return `${(value / 1_000_000).toFixed(1)}M`;
  if (Math.abs(value) >= 10_000) return `${Math.round(value / 1000)}k`;
  if (Math.abs(value) >= 1000) return `${(value / 1000).toFixed(1)}k`;
  return String(Math.round(value));
}

export function formatDuration(milliseconds: number): string {
  if (milliseconds < 1000) return `${Math.round(milliseconds)} ms`;
  const seconds = milliseconds / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes} min ${Math.round(seconds - minutes * 60)} s`;
}

/** Milliseconds from `start` to `time`, or null when either is not a date. */
export function elapsedMilliseconds(start: string, time: string): number | null {
  const from = Date.parse(start);
  const to = Date.parse(time);
  return Number.isNaN(from) || Number.isNaN(to) ? null : to - from;
}
