import { LINE_BREAK } from "./join-wrapped-lines.js";
import type { SecretRange } from "./secret-range.js";

export const PRIVATE_KEY_RULE_ID = "private-key";

/**
 * PEM armour of any private key: RSA, EC, DSA, PKCS#8 (`PRIVATE KEY`, `ENCRYPTED PRIVATE KEY`),
 * OpenSSH, and PGP's `PRIVATE KEY BLOCK`. Public keys and certificates are not secret.
 */
const BEGIN_PATTERN = /-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----/g;

/** A 4096-bit RSA key is ~3.3 kB; PGP blocks with subkeys can reach tens of kB. */
const END_SEARCH_WINDOW = 65_536;

/** A body line: base64, or an RFC 1421 header such as `Proc-Type: 4,ENCRYPTED`, or a PGP checksum. */
const BODY_LINE = /^(?:[A-Za-z0-9+/=]*|[A-Za-z-]+: [^\n]*)$/;

/**
 * The base64 that starts the line where a cut key ends. A key flattened onto one line, spaces for
 * newlines (a multi-line variable echoed unquoted), is runs of at least 40 base64 characters,
 * which no prose has: all of them are key, up to the partial run the cut left.
 */
const PARTIAL_LINE_HEAD = /^\s*(?:[A-Za-z0-9+/=]{40,}[ \t]+)*[A-Za-z0-9+/=]{4,}/;

/**
 * What separates PEM lines: real newlines, and their escapes in a JSON string, also in a JSON
 * string inside another (`\\n`), as join-wrapped-lines.ts defines them.
 */
const LINE_SEPARATOR = new RegExp(LINE_BREAK.source, "g");

/**
 * Where the key text ends when its END line is missing (cut by truncation or a byte limit):
 * the BEGIN line is followed by base64 lines; the first line that is not one ends the key.
 */
function endOfCutBody(text: string, bodyStart: number): number {
  LINE_SEPARATOR.lastIndex = bodyStart;
  let lineStart = bodyStart;
  let previousLineEnd = bodyStart;
  for (;;) {
    const separator = LINE_SEPARATOR.exec(text);
    const lineEnd = separator === null ? text.length : separator.index;
    const rawLine = text.slice(lineStart, lineEnd);
    if (!BODY_LINE.test(rawLine.trim())) {
      // A partial last line such as `MIIEow…` running into other text: its base64 head is key.
      const head = PARTIAL_LINE_HEAD.exec(rawLine);
      return head === null ? previousLineEnd : lineStart + head[0].length;
    }
    if (separator === null) return text.length;
    previousLineEnd = lineEnd;
    lineStart = separator.index + separator[0].length;
    LINE_SEPARATOR.lastIndex = lineStart;
  }
}

const END_PATTERN = /-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----/g;

function allMatches(pattern: RegExp, text: string): RegExpExecArray[] {
  const matches: RegExpExecArray[] = [];
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) matches.push(match);
  return matches;
}

/**
 * Each BEGIN runs to the first END after it, unless another BEGIN or the search window comes
 * first; then the key was cut and its base64 lines are followed instead. BEGIN and END markers
 * are each found in one pass, so a text of many unterminated BEGINs stays linear.
 */
export function findPrivateKeys(text: string): SecretRange[] {
  const begins = allMatches(BEGIN_PATTERN, text);
  if (begins.length === 0) return [];
  const ends = allMatches(END_PATTERN, text);
  const ranges: SecretRange[] = [];
  let endCursor = 0;
  let coveredUntil = 0;
  begins.forEach((begin, index) => {
    const start = begin.index;
    if (start < coveredUntil) return;
    const bodyStart = start + begin[0].length;
    while (endCursor < ends.length && (ends[endCursor]?.index ?? 0) < bodyStart) endCursor += 1;
    const endMarker = ends[endCursor];
    const nextBegin = begins[index + 1]?.index ?? Number.POSITIVE_INFINITY;
    const hasEnd =
      endMarker !== undefined &&
      endMarker.index < nextBegin &&
      endMarker.index - bodyStart <= END_SEARCH_WINDOW;
    const end = hasEnd ? endMarker.index + endMarker[0].length : endOfCutBody(text, bodyStart);
    ranges.push({ start, end, ruleId: PRIVATE_KEY_RULE_ID });
    coveredUntil = end;
  });
  return ranges;
}
