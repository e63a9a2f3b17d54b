/**
 * Finds the classic cause of catastrophic backtracking in a JavaScript regex: a group that
 * contains an unbounded quantifier and is itself repeated without bound, as in `(a+)+` or
 * `(\w*\s?)*`. JavaScript regexes cannot be interrupted, so such a pattern on one unlucky line
 * would freeze the whole process. Returns the offending group's text, or undefined.
 *
 * This is a deliberate over-approximation of a narrow class; overlapping alternations like
 * `(a|a)*` are not detected.
 */
export function findNestedQuantifier(source: string): string | undefined {
  const groups: { start: number; hasQuantifier: boolean }[] = [];
  let index = 0;
  while (index < source.length) {
    const character = source[index];
    if (character === "\\") {
      index += 2;
      continue;
    }
    if (character === "[") {
      index = skipCharacterClass(source, index);
      continue;
    }
    if (character === "(") {
      groups.push({ start: index, hasQuantifier: false });
      index += 1;
      continue;
    }
    if (character === ")") {
      const group = groups.pop();
      const quantifierLength = unboundedQuantifierLength(source, index + 1);
      if (group !== undefined) {
        if (group.hasQuantifier && quantifierLength > 0) {
          return source.slice(group.start, index + 1 + quantifierLength);
        }
        const parent = groups.at(-1);
        if (parent !== undefined && (group.hasQuantifier || quantifierLength > 0)) {
          parent.hasQuantifier = true;
        }
      }
      index += 1 + quantifierLength;
      continue;
    }
    const quantifierLength = unboundedQuantifierLength(source, index);
    if (quantifierLength > 0) {
      const current = groups.at(-1);
      if (current !== undefined) current.hasQuantifier = true;
      index += quantifierLength;
      continue;
    }
    index += 1;
  }
  return undefined;
}

/** Length of `*`, `+` or `{n,}` / `{n,m}` at `index` (with a lazy `?`), 0 if none. */
function unboundedQuantifierLength(source: string, index: number): number {
  const character = source[index];
  let length = 0;
  if (character === "*" || character === "+") {
    length = 1;
  } else if (character === "{") {
    const match = /^\{\d*,\d*\}/.exec(source.slice(index, index + 24));
    length = match ? match[0].length : 0;
  }
  if (length > 0 && source[index + length] === "?") length += 1;
  return length;
}

function skipCharacterClass(source: string, start: number): number {
  let index = start + 1;
  while (index < source.length && source[index] !== "]") {
    index += source[index] === "\\" ? 2 : 1;
  }
  return index + 1;
}
