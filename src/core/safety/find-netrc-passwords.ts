import { isLikelySecretValue, isPlaceholderValue } from "./secret-heuristics.js";
import type { SecretRange } from "./secret-range.js";

export const NETRC_PASSWORD_RULE_ID = "netrc-password";

/**
 * The value keywords of a .netrc entry (read by curl, git, ftp, pip, the Heroku CLI): the entry is
 * whitespace-separated tokens, `machine NAME` or `default`, then `login NAME`, `password VALUE`,
 * `account VALUE` in any order, on one line or several. ftp(1) describes `account` as an
 * additional password, so its value is hidden too.
 *
 * The netrc packages on npm parse a whole file into objects without offsets, so they cannot say
 * where a password sits inside a tool's output; this scanner can, in one pass.
 */
const VALUE_KEYWORD = /(?:password|account)(?=\s|\\[nrt])/g;

/** Token separators: whitespace, or the `\n` `\r` `\t` escapes of a JSON or log string. */
const SEPARATORS = /(?:\s|\\[nrt])+/y;

/** How far back the entry's `machine` may be: a netrc entry is a few short tokens. */
const LOOK_BACK_CHARS = 256;
const MAX_PAIRS_BACK = 4;
const MAX_VALUE_LENGTH = 1024;

const KEYWORDS_WITH_VALUE = new Set(["login", "password", "account"]);

/**
 * What a netrc `machine` names: a dotted host name, localhost or an IP address, optionally with a
 * port. "the machine learning login page password rules" has the keywords but names no host.
 */
const HOST = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+|localhost|\[?[0-9A-Fa-f:.]+\]?)(?::[0-9]{1,5})?$/;

type Context = "entry" | "after-login" | "none";

/** ASCII whitespace and the no-break space: what separates netrc tokens in text. */
function isWhitespace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13) || code === 160;
}

const BACKSLASH = 92;

/** Length of the separator that ends at `index` (whitespace, or a `\n` `\r` `\t` escape), else 0. */
function separatorBefore(text: string, index: number): number {
  const code = text.charCodeAt(index - 1);
  if (isWhitespace(code)) return 1;
  const isEscapeLetter = code === 110 || code === 114 || code === 116;
  return isEscapeLetter && text.charCodeAt(index - 2) === BACKSLASH ? 2 : 0;
}

/**
 * Up to `count` whitespace-separated tokens before `end`, nearest first, leading quotes removed,
 * reading no further back than LOOK_BACK_CHARS. Read backwards in place: splitting the window
 * would cost as much again for every `password` in a long text.
 */
function tokensBefore(text: string, end: number, count: number): string[] {
  const limit = Math.max(0, end - LOOK_BACK_CHARS);
  const tokens: string[] = [];
  let cursor = end;
  while (tokens.length < count && cursor > limit) {
    let skip = separatorBefore(text, cursor);
    while (skip > 0 && cursor > limit) {
      cursor -= skip;
      skip = separatorBefore(text, cursor);
    }
    const tokenEnd = cursor;
    while (cursor > limit && separatorBefore(text, cursor) === 0) cursor -= 1;
    if (cursor === tokenEnd) break;
    tokens.push(text.slice(cursor, tokenEnd).replace(/^["'`]+/, ""));
  }
  return tokens;
}

/**
 * Walks back over `keyword value` pairs. Reaching `machine HOST` or `default` proves a netrc
 * entry; otherwise a `login`/`account` pair right before the password is weaker evidence, and
 * the value must then look like a credential (prose such as "login page password rules" does not).
 */
function contextBefore(text: string, keywordStart: number): Context {
  // Nearest first: tokens[0] is a value, tokens[1] its keyword, and so on.
  const tokens = tokensBefore(text, keywordStart, MAX_PAIRS_BACK * 2 + 1);
  let afterLogin = false;
  let index = 0;
  for (let pairs = 0; index < tokens.length && pairs < MAX_PAIRS_BACK; pairs += 1) {
    const keyword = tokens[index + 1];
    if (keyword === "machine" && HOST.test(tokens[index] ?? "")) return "entry";
    if (keyword === undefined || !KEYWORDS_WITH_VALUE.has(keyword)) break;
    if (pairs === 0 && keyword !== "password") afterLogin = true;
    index += 2;
  }
  if (tokens[index] === "default") return "entry";
  return afterLogin ? "after-login" : "none";
}

/**
 * Whether a token starts at `index`: after whitespace, a quote, a `\n`-style escape, or at the
 * start. Checked here rather than by a lookbehind, which would run at every position of the text.
 */
function startsToken(text: string, index: number): boolean {
  if (index === 0) return true;
  const previous = text[index - 1] ?? "";
  if (/[\s"'`]/.test(previous)) return true;
  return index >= 2 && text[index - 2] === "\\" && /[nrt]/.test(previous);
}

function isQuote(character: string | undefined): boolean {
  return character === '"' || character === "'" || character === "`";
}

/** A quote that closes an enclosing string (`echo "… password x" > ~/.netrc`, a JSON value). */
function isClosingQuote(text: string, index: number): boolean {
  if (!isQuote(text[index])) return false;
  const next = text[index + 1];
  return next === undefined || /[\s\\,;)}\]>|&]/.test(next);
}

/** The value token at `start`: `"quoted"` (curl's form), else up to whitespace or a closing quote. */
function valueAt(text: string, start: number): { start: number; end: number } | undefined {
  if (text[start] === '"') {
    for (let index = start + 1; index < text.length && index - start <= MAX_VALUE_LENGTH; index += 1) {
      if (text[index] === "\\") index += 1;
      else if (text[index] === '"') return { start: start + 1, end: index };
    }
  }
  let end = start;
  while (end < text.length && end - start < MAX_VALUE_LENGTH) {
    const code = text.charCodeAt(end);
    if (isWhitespace(code) || isClosingQuote(text, end)) break;
    if (code === BACKSLASH && separatorBefore(text, end + 2) === 2) break;
    end += 1;
  }
  return end > start ? { start, end } : undefined;
}

export function findNetrcPasswords(text: string): SecretRange[] {
  const ranges: SecretRange[] = [];
  VALUE_KEYWORD.lastIndex = 0;
  for (let keyword = VALUE_KEYWORD.exec(text); keyword !== null; keyword = VALUE_KEYWORD.exec(text)) {
    if (!startsToken(text, keyword.index)) continue;
    SEPARATORS.lastIndex = keyword.index + keyword[0].length;
    const separators = SEPARATORS.exec(text);
    if (separators === null) continue;
    const value = valueAt(text, SEPARATORS.lastIndex);
    if (value === undefined) continue;
    const context = contextBefore(text, keyword.index);
    if (context === "none") continue;
    const literal = text.slice(value.start, value.end);
    if (literal.startsWith("[REDACTED") || isPlaceholderValue(literal)) continue;
    // In prose the word after "password" carries the sentence's punctuation: "password field,".
    if (context === "after-login" && !isLikelySecretValue(literal.replace(/[.,;:!?)]+$/, ""), true)) continue;
    ranges.push({ start: value.start, end: value.end, ruleId: NETRC_PASSWORD_RULE_ID });
    VALUE_KEYWORD.lastIndex = value.end;
  }
  return ranges;
}
