import { LINE_BREAK } from "./join-wrapped-lines.js";

/** Characters on each side of a break that must belong to some held variant. */
const GRAM_LENGTH = 6;
const HALF_GRAM = GRAM_LENGTH / 2;
/** 2^20 bits (128 KiB): even a held PEM key's ~40,000 grams leave most bits clear. */
const BITMAP_BITS = 1 << 20;

export interface BreakFilter {
  /**
   * Whether the line break `[start, end)` of `text` may split a held variant. False positives
   * cost a closer look; a false negative would miss a wrapped secret, so there are none for
   * unescaped variants (see createBreakFilter).
   */
  mightSplitVariant(text: string, start: number, end: number): boolean;
}

function gramHash(text: string, firstStart: number, firstLength: number, secondStart: number): number {
  let hash = 0;
  for (let index = 0; index < firstLength; index += 1) {
    hash = (Math.imul(hash, 31) + text.charCodeAt(firstStart + index)) | 0;
  }
  for (let index = 0; index < GRAM_LENGTH - firstLength; index += 1) {
    hash = (Math.imul(hash, 31) + text.charCodeAt(secondStart + index)) | 0;
  }
  return (hash ^ (hash >>> 15)) & (BITMAP_BITS - 1);
}

/**
 * Remembers every 6-character gram of the held variants (line breaks taken out). A variant of at
 * least 12 characters split by a break at offset k shows one of them around the break: the three
 * characters on each side when k ≥ 3 and k ≤ length − 3, else the six after the break (k < 3) or
 * the six before it. A wrap inside a percent or JSON escape can slip through; wraps land in runs of
 * letters and digits far more often, and those are what this sees.
 */
export function createBreakFilter(variants: Iterable<string>): BreakFilter {
  const grams = new Uint32Array(BITMAP_BITS / 32);
  const characters = new Uint8Array(128);
  let hasNonAscii = false;
  for (const variant of variants) {
    const joined = variant.replace(LINE_BREAK, "");
    for (let index = 0; index < joined.length; index += 1) {
      const code = joined.charCodeAt(index);
      if (code < 128) characters[code] = 1;
      else hasNonAscii = true;
      if (index + GRAM_LENGTH <= joined.length) {
        const bit = gramHash(joined, index, GRAM_LENGTH, 0);
        grams[bit >>> 5] = (grams[bit >>> 5] ?? 0) | (1 << (bit & 31));
      }
    }
  }

  const isHeld = (bit: number): boolean => ((grams[bit >>> 5] ?? 0) & (1 << (bit & 31))) !== 0;
  const isVariantCharacter = (code: number): boolean => (code < 128 ? characters[code] === 1 : hasNonAscii);

  return {
    mightSplitVariant(text, start, end) {
      if (start === 0 || end >= text.length) return false;
      if (!isVariantCharacter(text.charCodeAt(start - 1)) || !isVariantCharacter(text.charCodeAt(end))) {
        return false;
      }
      if (
        start >= HALF_GRAM &&
        end + HALF_GRAM <= text.length &&
        isHeld(gramHash(text, start - HALF_GRAM, HALF_GRAM, end))
      ) {
        return true;
      }
      if (end + GRAM_LENGTH <= text.length && isHeld(gramHash(text, end, GRAM_LENGTH, 0))) return true;
      return start >= GRAM_LENGTH && isHeld(gramHash(text, start - GRAM_LENGTH, GRAM_LENGTH, 0));
    },
  };
}
