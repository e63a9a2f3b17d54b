/** A word that names a variable: its text as written, its value when literal. */
export interface NamingWord {
  readonly source: string;
  readonly value: string;
  readonly isLiteral: boolean;
}

/**
 * The reason for a name whose array subscript bash evaluates as arithmetic, naming the
 * subscript: "evaluates the array subscript `$(id)` in `-v 'a[$(id)]'` as arithmetic, which runs
 * commands". A computed name without a visible subscript gets the reason about what it may hold.
 */
export function describeSubscript(construct: string, name: NamingWord): string {
  const text = name.isLiteral ? name.value : name.source;
  const open = text.indexOf("[");
  const close = text.lastIndexOf("]");
  if (open !== -1 && close > open) {
    return `evaluates the array subscript \`${text.slice(open + 1, close)}\` in \`${construct}\` as arithmetic, which runs commands`;
  }
  return `looks up the variable named by \`${name.source}\` (\`${construct}\`), which is computed at run time; bash evaluates an array subscript in such a name as arithmetic, which runs commands`;
}
