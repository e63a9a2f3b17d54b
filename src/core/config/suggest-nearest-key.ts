import { z } from "zod";

/**
 * The valid key closest to a mistyped one (edit distance at most a third of its length, at least
 * 2), or null when none is near enough to be a likely typo.
 */
export function suggestNearestKey(name: string, candidates: readonly string[]): string | null {
  const limit = Math.max(2, Math.floor(name.length / 3));
  let best: { key: string; distance: number } | null = null;
  for (const candidate of candidates) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance <= limit && (best === null || distance < best.distance)) best = { key: candidate, distance };
  }
  return best?.key ?? null;
}

/** The keys an object schema accepts at `path` (record values and array items are walked through). */
export function keysAtPath(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let current: z.ZodType | undefined = unwrap(schema);
  for (const segment of path) {
    if (current instanceof z.ZodObject)
      current = (current.shape as Record<string, z.ZodType>)[String(segment)];
    else if (current instanceof z.ZodRecord) current = current.valueType as z.ZodType;
    else if (current instanceof z.ZodArray) current = current.element as z.ZodType;
    else return [];
    current = current === undefined ? undefined : unwrap(current);
  }
  return current instanceof z.ZodObject ? Object.keys(current.shape) : [];
}

/** Optional, default, nullable and pipe wrappers hide the object inside. */
function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (;;) {
    const definition = current._zod.def as { innerType?: z.ZodType; in?: z.ZodType };
    const inner = definition.innerType ?? definition.in;
    if (inner === undefined) return current;
    current = inner;
  }
}

function editDistance(left: string, right: string): number {
  let previous = Array.from({ length: right.length + 1 }, (_, index) => index);
  for (let i = 1; i <= left.length; i += 1) {
    const row = [i];
    for (let j = 1; j <= right.length; j += 1) {
      const substitution = (previous[j - 1] ?? 0) + (left[i - 1] === right[j - 1] ? 0 : 1);
      row.push(Math.min((previous[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, substitution));
    }
    previous = row;
  }
  return previous[right.length] ?? 0;
}
