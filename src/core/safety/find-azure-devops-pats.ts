import type { SecretRange } from "./secret-range.js";

export const AZURE_DEVOPS_PAT_RULE_ID = "azure-devops-pat";

/**
 * Azure DevOps personal access tokens, in their two public formats:
 *
 * - Current: 84 base62 characters with the fixed signature `AZDO` at offset 76 (Microsoft
 *   Purview's "Azure DevOps personal access token" definition; Microsoft's security-utilities
 *   lays such keys out as 52 random characters, the `JQQJ9` signature, date and reserved
 *   characters, then `AZDO` and a 4-character checksum). Distinctive enough to match alone.
 * - Legacy: 52 characters of lower-case RFC 4648 base32, `[a-z2-7]`, a 256-bit key
 *   (security-utilities rule SEC101/102). With no signature the shape alone is too weak (a Nix
 *   base32 hash is 52 characters too), so only about LEGACY_REACH characters or less from a word
 *   that names it on the same line, before or after (`echo PAT | az devops login`): the keywords of
 *   Purview's definition. Named assignments, URLs and Basic headers are found by the general rules.
 */
const SIGNATURE = /AZDO[A-Za-z0-9]{4}(?![A-Za-z0-9_+/=-])/g;
const SIGNATURE_OFFSET = 76;

const KEYWORD = /pat|ado|vsts|azure|devops|visualstudio\.com/gi;
const LEGACY_PAT = /(?<![A-Za-z0-9_+/-])[a-z2-7]{52}(?![A-Za-z0-9_+/=-])/g;
const LEGACY_LENGTH = 52;
const LEGACY_REACH = 120;

const isBase62 = (text: string): boolean => /^[A-Za-z0-9]+$/.test(text);

function findCurrentFormat(text: string, ranges: SecretRange[]): void {
  SIGNATURE.lastIndex = 0;
  for (let match = SIGNATURE.exec(text); match !== null; match = SIGNATURE.exec(text)) {
    const start = match.index - SIGNATURE_OFFSET;
    if (start < 0 || /[A-Za-z0-9_+/-]/.test(text[start - 1] ?? "")) continue;
    if (!isBase62(text.slice(start, match.index))) continue;
    ranges.push({ start, end: match.index + match[0].length, ruleId: AZURE_DEVOPS_PAT_RULE_ID });
  }
}

/** `pat` and `ado` count as words only: not in `path`, `compat`, `avocado`. */
function isKeyword(text: string, match: RegExpExecArray): boolean {
  if (match[0].length !== 3) return true;
  return !/[A-Za-z]/.test(text[match.index - 1] ?? "") && !/[A-Za-z]/.test(text[match.index + 3] ?? "");
}

/**
 * Where a legacy PAT may be: around each keyword, up to its line's ends. Overlapping windows are
 * merged, so a text full of keywords is still scanned once.
 */
function keywordWindows(text: string): Array<{ start: number; end: number }> {
  const windows: Array<{ start: number; end: number }> = [];
  KEYWORD.lastIndex = 0;
  for (let match = KEYWORD.exec(text); match !== null; match = KEYWORD.exec(text)) {
    if (!isKeyword(text, match)) continue;
    const reach = LEGACY_REACH + LEGACY_LENGTH;
    const before = text.slice(Math.max(0, match.index - reach), match.index);
    const after = text.slice(match.index, match.index + match[0].length + reach);
    const start = match.index - before.length + before.lastIndexOf("\n") + 1;
    const newlineAfter = after.indexOf("\n");
    const end = match.index + (newlineAfter === -1 ? after.length : newlineAfter);
    const last = windows[windows.length - 1];
    if (last !== undefined && start <= last.end) last.end = Math.max(last.end, end);
    else windows.push({ start, end });
  }
  return windows;
}

function findLegacyFormat(text: string, ranges: SecretRange[]): void {
  for (const window of keywordWindows(text)) {
    const slice = text.slice(window.start, window.end);
    LEGACY_PAT.lastIndex = 0;
    for (let found = LEGACY_PAT.exec(slice); found !== null; found = LEGACY_PAT.exec(slice)) {
      const start = window.start + found.index;
      const end = start + LEGACY_LENGTH;
      // The window may cut a longer run: its edges are checked against the whole text.
      if (/[A-Za-z0-9_+/-]/.test(text[start - 1] ?? "") || /[A-Za-z0-9_+/=-]/.test(text[end] ?? "")) continue;
      // A random base32 key mixes letters and digits; a run of letters alone is a word.
      if (!/[2-7]/.test(found[0]) || !/[a-z]/.test(found[0])) continue;
      ranges.push({ start, end, ruleId: AZURE_DEVOPS_PAT_RULE_ID });
    }
  }
}

export function findAzureDevOpsPats(text: string): SecretRange[] {
  const ranges: SecretRange[] = [];
  findCurrentFormat(text, ranges);
  findLegacyFormat(text, ranges);
  return ranges;
}
