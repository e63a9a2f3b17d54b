/** Longest prefix compared; keeps the quadratic edit distance cheap on long lines. */
export const MAX_COMPARED_LENGTH = 200;

/**
 * 1 for equal strings, 0 for nothing in common: one minus the edit distance over the longer
 * length. Used only to rank suggestions, never to decide what gets changed.
 */
export function stringSimilarity(left: string, right: string): number {
  const a = left.slice(0, MAX_COMPARED_LENGTH);
  const b = right.slice(0, MAX_COMPARED_LENGTH);
  const longest = Math.max(a.length, b.length);
  if (longest === 0) {
    return 1;
  }
  return 1 - editDistance(a, b) / longest;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let row = 1; row <= a.length; row += 1) {
    const current = [row];
    for (let column = 1; column <= b.length; column += 1) {
      const substitution = (previous[column - 1] ?? 0) + (a[row - 1] === b[column - 1] ? 0 : 1);
      const deletion = (previous[column] ?? 0) + 1;
      const insertion = (current[column - 1] ?? 0) + 1;
      current.push(Math.min(substitution, deletion, insertion));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
