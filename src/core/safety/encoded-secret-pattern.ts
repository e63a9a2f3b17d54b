import { LINE_BREAK } from "./join-wrapped-lines.js";

/**
 * A regex source that matches `value` however its characters were escaped on the way into text.
 * Encoders differ in which characters they touch (encodeURIComponent, Python's quote with its
 * `safe="/"`, form encoding's `+` for space; JSON.stringify, PHP's `\/`, Python's `\u00e9`, Go's
 * `\u003c`), so spelling out one string per encoder would always miss one: instead every character
 * that is not a letter or a digit may appear raw or in any of these forms, in any mix:
 *
 * - percent-encoded, either hex case, also twice (`%252F`), with `+` for a space;
 * - backslash-escaped as `\"`, `\/`, `\$` (JSON, JavaScript, shell), or as `\uXXXX`, UTF-16
 *   surrogate pairs for characters beyond the BMP, behind 1 to 7 backslashes (enough for a JSON
 *   string inside a JSON string inside a JSON string);
 * - a line break in the value (a PEM key) matches any line break and indentation, its
 *   percent-encoding, or nothing, so the value is found however it was re-wrapped.
 *
 * Letters and digits are never escaped by these encoders and stay literal, which keeps the
 * pattern fast: most alternatives start with a fixed character, which V8 checks before anything
 * else, and build-alternation.ts groups them by it.
 */

const BACKSLASHES = String.raw`\\{1,7}`;
/**
 * The value's own line breaks. Only real ones: a backslash and an `n` in a value are two
 * characters, each with its own encodings (`%5Cn`), though in text they may also be an escape.
 */
const VALUE_LINE_BREAK = /(?:\r\n|\n|\r)[ \t]*/;

/** A line break of the value as it may appear in text, or none at all. */
const ANY_BREAK = String.raw`(?:${LINE_BREAK.source}|%(?:25)?0[aAdD]|%(?:25)?09|%(?:25)?20|\+)*`;
/** JSON's and JavaScript's one-letter escapes of control characters other than line breaks. */
const SHORT_ESCAPES = new Map([
  ["\t", "t"],
  ["\b", "b"],
  ["\f", "f"],
  ["\v", "v"],
  ["\0", "0"],
]);

function escapeForRegex(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
}

/** `2f` → `2[fF]`: hex digits in either case. */
function anyCaseHex(hex: string): string {
  return hex.replace(/[a-f]/gi, (digit) => `[${digit.toLowerCase()}${digit.toUpperCase()}]`);
}

function percentForm(character: string): string {
  const bytes = Buffer.from(character, "utf8");
  return [...bytes].map((byte) => `%(?:25)?${anyCaseHex(byte.toString(16).padStart(2, "0"))}`).join("");
}

function unicodeEscapeForm(character: string): string {
  const units: string[] = [];
  for (let index = 0; index < character.length; index += 1) {
    const unit = character.charCodeAt(index).toString(16).padStart(4, "0");
    units.push(`${BACKSLASHES}u${anyCaseHex(unit)}`);
  }
  return units.join("");
}

function characterForms(character: string): string {
  if (/^[A-Za-z0-9]$/.test(character)) return character;
  const forms = [escapeForRegex(character), percentForm(character), unicodeEscapeForm(character)];
  if (character.length === 1 && character.charCodeAt(0) < 128) {
    // `\"`, `\/`, `\$`; for `\` itself this reads 2 to 8 backslashes.
    forms.push(`${BACKSLASHES}${escapeForRegex(character)}`);
  }
  const shortEscape = SHORT_ESCAPES.get(character);
  if (shortEscape !== undefined) forms.push(`${BACKSLASHES}${shortEscape}`);
  if (character === " ") forms.push(String.raw`\+`);
  return `(?:${forms.join("|")})`;
}

export function encodedSecretPattern(value: string): string {
  return value
    .split(VALUE_LINE_BREAK)
    .map((line) => Array.from(line, characterForms).join(""))
    .join(ANY_BREAK);
}
