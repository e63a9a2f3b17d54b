/**
 * A "skeleton" of text for spotting look-alikes of the fence markers: invisible characters are
 * dropped, compatibility forms folded (fullwidth `＜`, mathematical letters), accents stripped,
 * and common confusables (Cyrillic `Т`, Greek `Ε`, angle quotes `‹ «`) mapped to the ASCII
 * they imitate. `origin[i]` is the index in the original text of skeleton character `i`, so a
 * match in the skeleton can be cut out of the original.
 */
export interface Skeleton {
  readonly text: string;
  /** Undefined when the skeleton is the original text unchanged (pure ASCII input). */
  readonly origin: readonly number[] | undefined;
}

/** Zero-width, joiners, bidi controls, word joiners, BOM, tag characters, variation selectors, soft hyphen. */
export const INVISIBLE_CHARACTER =
  // Combining code points are listed one by one on purpose: each is matched on its own.
  // eslint-disable-next-line no-misleading-character-class
  /[\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180B-\u180F\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0]|\uDB40[\uDC00-\uDDEF]/;

const CONFUSABLES: Readonly<Record<string, string>> = {
  "\u2039": "<",
  "\u00AB": "<",
  "\u02C2": "<",
  "\u1438": "<",
  "\u3008": "<",
  "\u27E8": "<",
  "\u276E": "<",
  "\u227A": "<",
  "\u22D6": "<",
  "\u226A": "<<",
  "\u300A": "<<",
  "\u2329": "<",
  "\u203A": ">",
  "\u00BB": ">",
  "\u02C3": ">",
  "\u1433": ">",
  "\u3009": ">",
  "\u27E9": ">",
  "\u276F": ">",
  "\u227B": ">",
  "\u22D7": ">",
  "\u226B": ">>",
  "\u300B": ">>",
  "\u232A": ">",
  "\u0410": "A",
  "\u0412": "B",
  "\u0415": "E",
  "\u0395": "E",
  "\u13AC": "E",
  "\u0405": "S",
  "\u0455": "s",
  "\u13DA": "S",
  "\u0422": "T",
  "\u03A4": "T",
  "\u0442": "t",
  "\u22A4": "T",
  "\u039D": "N",
  "\u0418": "N",
  "\u054D": "U",
  "\u222A": "U",
  "\u1455": "U",
  "\u13A1": "R",
  "\u13A0": "D",
  "\u0406": "I",
  "\u0456": "i",
  "\u0399": "I",
  "\u0435": "e",
  "\u043E": "o",
  "\u041E": "O",
  "\u039F": "O",
  "\u0440": "p",
  "\u0420": "P",
  "\u0441": "c",
  "\u0421": "C",
  "\u0443": "y",
  "\u0445": "x",
  "\u0430": "a",
  "\u0501": "d",
  "\u0261": "g",
};

const foldCache = new Map<string, string>();

function foldCharacter(character: string): string {
  const cached = foldCache.get(character);
  if (cached !== undefined) return cached;
  let folded: string;
  if (INVISIBLE_CHARACTER.test(character)) folded = "";
  else {
    const mapped = CONFUSABLES[character];
    folded = mapped ?? character.normalize("NFKD").replace(/\p{M}/gu, "");
    folded = [...folded].map((part) => CONFUSABLES[part] ?? part).join("");
  }
  if (foldCache.size < 4096) foldCache.set(character, folded);
  return folded;
}

export function buildSkeleton(text: string): Skeleton {
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7F]*$/.test(text)) return { text, origin: undefined };
  const parts: string[] = [];
  const origin: number[] = [];
  let index = 0;
  for (const character of text) {
    const code = character.charCodeAt(0);
    const folded = code < 0x80 ? character : foldCharacter(character);
    parts.push(folded);
    for (let k = 0; k < folded.length; k += 1) origin.push(index);
    index += character.length;
  }
  return { text: parts.join(""), origin };
}

/** The original-text span `[start, end)` behind skeleton span `[start, end)`. */
export function originalSpan(
  skeleton: Skeleton,
  original: string,
  start: number,
  end: number,
): { start: number; end: number } {
  if (skeleton.origin === undefined) return { start, end };
  const first = skeleton.origin[start] ?? original.length;
  const lastIndex = skeleton.origin[end - 1];
  if (lastIndex === undefined) return { start: first, end: original.length };
  const lastCode = original.codePointAt(lastIndex) ?? 0;
  return { start: first, end: lastIndex + (lastCode > 0xffff ? 2 : 1) };
}
