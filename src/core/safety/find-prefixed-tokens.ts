import { PREFIXED_TOKEN_FORMATS, type PrefixedTokenFormat } from "./prefixed-token-formats.js";
import { looksLikeSlug } from "./secret-heuristics.js";
import type { SecretRange } from "./secret-range.js";

export const PREFIX_FRAGMENT_RULE_ID = "prefix-fragment";

const DEFAULT_FRAGMENT_MIN = 4;

interface CompiledFormat {
  readonly format: PrefixedTokenFormat;
  /** allowed[charCode] is 1 when the body alphabet holds that ASCII character. */
  readonly allowed: Uint8Array;
}

function compileAlphabet(alphabet: string): Uint8Array {
  const allowed = new Uint8Array(128);
  const test = new RegExp(`[${alphabet}]`);
  for (let code = 0; code < 128; code += 1) {
    if (test.test(String.fromCharCode(code))) allowed[code] = 1;
  }
  return allowed;
}

function escapeForRegex(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
}

const BY_PREFIX = new Map<string, CompiledFormat>();
for (const format of PREFIXED_TOKEN_FORMATS) {
  const compiled = { format, allowed: compileAlphabet(format.alphabet) };
  for (const prefix of format.prefixes) BY_PREFIX.set(prefix, compiled);
}

// Longest prefix first, so `sk-ant-` wins over `sk-`. One pass over the text finds every family.
const PREFIX_PATTERN = new RegExp(
  `(?:${[...BY_PREFIX.keys()]
    .sort((left, right) => right.length - left.length)
    .map(escapeForRegex)
    .join("|")})`,
  "g",
);

/**
 * Length of a line break at `index` plus the indentation after it: a real newline, or the
 * two-character `\n` escape of a JSON or log string. 0 when there is none.
 */
function breakLength(text: string, index: number): number {
  let cursor = index;
  if (text.startsWith("\r\n", cursor)) cursor += 2;
  else if (text[cursor] === "\n" || text[cursor] === "\r") cursor += 1;
  else if (text.startsWith("\\r\\n", cursor)) cursor += 4;
  else if (text.startsWith("\\n", cursor) || text.startsWith("\\r", cursor)) cursor += 2;
  else return 0;
  while (text[cursor] === " " || text[cursor] === "\t") cursor += 1;
  return cursor - index;
}

function isAllowed(allowed: Uint8Array, code: number): boolean {
  return code < 128 && allowed[code] === 1;
}

/**
 * Terminals and log wrappers break lines at a fixed width of 80 columns or more, PEM-like
 * wrappers at 64; a line shorter than this did not end because it was full.
 */
const WRAP_MIN_COLUMNS = 60;

/**
 * Whether a token that already has a full body still continues after the break at `breakAt`:
 * the line it ends was long enough to have been wrapped, and the next line starts with a run that
 * reads like more key (mixed case and digits), not like a word or a number (`total 48`, `2024-05`).
 */
function continuesAfterWrap(text: string, breakAt: number, skip: number, allowed: Uint8Array): boolean {
  // Only the last WRAP_MIN_COLUMNS characters are looked at: a search back to the line's start
  // would cross the whole text when it has no newline, for every token in it.
  if (breakAt < WRAP_MIN_COLUMNS) return false;
  const lineEnd = text.slice(breakAt - WRAP_MIN_COLUMNS, breakAt);
  if (/[\r\n]|\\[nr]/.test(lineEnd)) return false;
  let runEnd = breakAt + skip;
  while (runEnd < text.length && isAllowed(allowed, text.charCodeAt(runEnd))) runEnd += 1;
  return !looksLikeSlug(text.slice(breakAt + skip, runEnd));
}

/**
 * Finds prefixed tokens, including ones wrapped onto the next line (a terminal, a PEM-like
 * wrap, a JSON `\n`): while a body is shorter than a full token and a line break follows, the
 * next line's leading token characters are taken as its continuation; past a full body, only when
 * the break looks like a wrap (continuesAfterWrap), since keys such as `sk-proj-…` (~160
 * characters) are longer than a terminal line.
 */
export function findPrefixedTokens(text: string, includeFragments: boolean): SecretRange[] {
  const ranges: SecretRange[] = [];
  PREFIX_PATTERN.lastIndex = 0;
  for (let match = PREFIX_PATTERN.exec(text); match !== null; match = PREFIX_PATTERN.exec(text)) {
    const compiled = BY_PREFIX.get(match[0]);
    if (compiled === undefined) continue;
    const { format, allowed } = compiled;
    const start = match.index;
    // `task-ask` holds `sk-`: a weak prefix inside a word counts only as a complete token. A
    // distinctive one (`ghp_`) counts even glued to other text, as in `xxxghp_…` from a cut line.
    const isInsideWord = !format.distinctive && start > 0 && /[A-Za-z0-9]/.test(text[start - 1] ?? "");
    let end = start + match[0].length;
    let body = "";
    for (;;) {
      const segmentStart = end;
      while (end < text.length && isAllowed(allowed, text.charCodeAt(end))) end += 1;
      body += text.slice(segmentStart, end);
      if (body.length === 0) break;
      const skip = breakLength(text, end);
      if (skip === 0 || !isAllowed(allowed, text.charCodeAt(end + skip))) break;
      if (body.length >= format.fullMin && !continuesAfterWrap(text, end, skip, allowed)) break;
      end += skip;
    }
    PREFIX_PATTERN.lastIndex = Math.max(end, start + 1);
    const isNameLike = !format.distinctive && looksLikeSlug(body);
    if (body.length >= format.fullMin) {
      if (!isNameLike) ranges.push({ start, end, ruleId: format.id });
    } else if (
      includeFragments &&
      !isInsideWord &&
      !isNameLike &&
      body.length >= (format.fragmentMin ?? DEFAULT_FRAGMENT_MIN)
    ) {
      ranges.push({ start, end, ruleId: PREFIX_FRAGMENT_RULE_ID });
    }
  }
  return ranges;
}
