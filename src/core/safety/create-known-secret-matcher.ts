import { buildAlternation, type Alternative } from "./build-alternation.js";
import { createBreakFilter, type BreakFilter } from "./create-break-filter.js";
import { encodedSecretPattern } from "./encoded-secret-pattern.js";
import { forEachLineBreak, joinWrappedLines } from "./join-wrapped-lines.js";
import { knownSecretVariants, MIN_FRAGMENT_LENGTH } from "./known-secret-variants.js";
import type { SecretRange } from "./secret-range.js";

export const KNOWN_SECRET_RULE_ID = "known-secret";

export interface KnownSecretMatcher {
  /** Adds `value` and its encodings; false when it adds nothing (too short, or already held). */
  add(value: string): boolean;
  find(text: string): SecretRange[];
}

interface Compiled {
  readonly patterns: readonly RegExp[];
  readonly breakFilter: BreakFilter;
  readonly longestVariant: number;
}

/**
 * V8 stops optimising a regex whose source passes 20 KB (kRegExpTooLargeToOptimize): a private
 * key's variants and a few tokens' together ran 20 times slower than each set alone. The
 * alternatives are split into patterns below this size instead; their matches are merged later
 * like those of any two rules.
 */
const PATTERN_SOURCE_LIMIT = 12_000;

function compile(variants: ReadonlySet<string>): Compiled {
  // Longest first, so a whole PEM key wins over one of its lines.
  const sorted = [...variants].sort((left, right) => right.length - left.length);
  const sources = new Set<string>();
  const chunks: Alternative[][] = [];
  let chunkSize = Infinity;
  for (const variant of sorted) {
    const source = encodedSecretPattern(variant);
    if (sources.has(source)) continue;
    sources.add(source);
    if (chunkSize + source.length > PATTERN_SOURCE_LIMIT) {
      chunks.push([]);
      chunkSize = 0;
    }
    chunks[chunks.length - 1]?.push({ source, literalHead: /^[A-Za-z0-9]*/.exec(variant)?.[0] ?? "" });
    chunkSize += source.length + 1;
  }
  return {
    patterns: chunks.map((chunk) => new RegExp(buildAlternation(chunk), "g")),
    breakFilter: createBreakFilter(sorted),
    longestVariant: sorted[0]?.length ?? 0,
  };
}

/** Every non-empty match of `pattern` in `text`; a caller may move `lastIndex` between them. */
function* matchesOf(pattern: RegExp, text: string): Generator<RegExpExecArray> {
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    if (match[0].length === 0) pattern.lastIndex += 1;
    else yield match;
  }
}

/**
 * Finds the exact values the process holds in any of their encodings (known-secret-variants.ts,
 * encoded-secret-pattern.ts). A value wrapped by a terminal, `base64` or a log wrapper is found
 * too: around each line break that might split a held variant (create-break-filter.ts), a window
 * of the text is joined and searched again. A match across a break must be at least
 * MIN_FRAGMENT_LENGTH long, so that two unrelated line ends never join into a short secret.
 */
export function createKnownSecretMatcher(): KnownSecretMatcher {
  const variants = new Set<string>();
  let compiled: Compiled | undefined;

  function add(value: string): boolean {
    const before = variants.size;
    for (const variant of knownSecretVariants(value)) variants.add(variant);
    if (variants.size === before) return false;
    compiled = compile(variants);
    return true;
  }

  function findAcrossBreaks(
    text: string,
    { patterns, breakFilter, longestVariant }: Compiled,
  ): SecretRange[] {
    const windows: Array<{ start: number; end: number }> = [];
    forEachLineBreak(text, (start, end) => {
      if (!breakFilter.mightSplitVariant(text, start, end)) return;
      const window = {
        start: Math.max(0, start - longestVariant),
        end: Math.min(text.length, end + longestVariant),
      };
      const last = windows[windows.length - 1];
      if (last !== undefined && window.start <= last.end) last.end = window.end;
      else windows.push(window);
    });
    const ranges: SecretRange[] = [];
    for (const window of windows) {
      const joined = joinWrappedLines(text.slice(window.start, window.end));
      for (const pattern of patterns) {
        for (const match of matchesOf(pattern, joined.text)) {
          const end = match.index + match[0].length;
          // Matches within one line were found by the search of the whole text.
          if (!joined.crossesBreak(match.index, end)) continue;
          if (match[0].length < MIN_FRAGMENT_LENGTH) {
            // Not taken, so not consumed: a real occurrence may start inside it.
            pattern.lastIndex = match.index + 1;
            continue;
          }
          const span = joined.originalSpan(match.index, end);
          ranges.push({
            start: window.start + span.start,
            end: window.start + span.end,
            ruleId: KNOWN_SECRET_RULE_ID,
          });
        }
      }
    }
    return ranges;
  }

  function find(text: string): SecretRange[] {
    if (compiled === undefined) return [];
    const ranges: SecretRange[] = [];
    for (const pattern of compiled.patterns) {
      for (const match of matchesOf(pattern, text)) {
        ranges.push({ start: match.index, end: match.index + match[0].length, ruleId: KNOWN_SECRET_RULE_ID });
      }
    }
    ranges.push(...findAcrossBreaks(text, compiled));
    return ranges;
  }

  return { add, find };
}
