import { randomBytes } from "node:crypto";

export type IdValidation =
  { readonly success: true; readonly value: string } | { readonly success: false; readonly error: string };

/**
 * Ids become path segments under the data directory, so they are held to a small alphabet: no
 * separators, no leading dot, no `..` anywhere, at most 128 characters. This is the only gate
 * between an id from outside (`--resume ID`, a queue message) and a path.
 */
const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export function validateId(id: unknown): IdValidation {
  if (typeof id !== "string") return { success: false, error: "an id must be a string" };
  if (id.length === 0) return { success: false, error: "an id must not be empty" };
  if (id.length > 128) return { success: false, error: `an id is at most 128 characters (got ${id.length})` };
  if (!ID_PATTERN.test(id)) {
    return {
      success: false,
      error: `invalid id ${JSON.stringify(id)}: use letters, digits, '.', '_' and '-', starting with a letter or digit`,
    };
  }
  if (id.includes(".."))
    return { success: false, error: `invalid id ${JSON.stringify(id)}: '..' is not allowed` };
  return { success: true, value: id };
}

/**
 * A run id that sorts by creation time (UTC, millisecond precision) and cannot collide in
 * practice: `20250102T030405678Z-` followed by 12 random hex digits.
 */
export function createRunId(now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace(".", "");
  return `${stamp}-${randomBytes(6).toString("hex")}`;
}
