import type { BashNode } from "./load-bash-parser.js";

const DELIMITER = /^(?:([A-Za-z_][A-Za-z0-9_]*)|'([A-Za-z_][A-Za-z0-9_]*)'|"([A-Za-z_][A-Za-z0-9_]*)")$/;
/** In an unquoted body, only plain variable expansions: `$name`, `${name}`, `$1`, `$?`. */
const PLAIN_EXPANSION = /^\$([A-Za-z_][A-Za-z0-9_]*|\{[A-Za-z_][A-Za-z0-9_]*\}|[0-9?#@*!$-])/;

/**
 * Where a here-document's body starts and ends is read again here, the way bash reads it, and
 * compared with tree-sitter's reading; they differ on delimiters such as `E'F'` (tree-sitter
 * ends the body at a line `E'F'`, bash at `EF`, so the lines between run as commands). Approved:
 * one here-document on its line, a plain delimiter (bare, or wholly in single or double quotes),
 * the rest of the line free of quotes, backslashes, `$` and other `<<`, and, when the delimiter
 * is bare, a body with no substitutions, backquotes or backslashes. Undefined when it matches.
 */
export function checkHereDocument(
  node: BashNode,
  source: string,
  insideSubstitution: boolean,
): string | undefined {
  if (insideSubstitution) {
    return "is a here-document inside a substitution, where bash and the parser may end it differently";
  }
  const operator = node.children[0];
  const start = node.children.find((child) => child.type === "heredoc_start");
  if ((operator?.type !== "<<" && operator?.type !== "<<-") || start === undefined) {
    return "is a here-document the policy cannot read";
  }
  const delimiter = DELIMITER.exec(start.text);
  if (delimiter === null) {
    return `has the here-document delimiter \`${start.text}\`; only a plain word, wholly quoted or not, is read the same way by bash and the parser`;
  }
  const word = (delimiter[1] ?? delimiter[2] ?? delimiter[3]) as string;
  const isQuoted = delimiter[1] === undefined;
  const lineEnd = source.indexOf("\n", start.endIndex);
  if (lineEnd === -1) {
    return "has a here-document without a body";
  }
  const restOfLine = source.slice(start.endIndex, lineEnd);
  if (/['"`\\$]|<</.test(restOfLine)) {
    return "has quotes, `$`, a backslash or another here-document after the here-document operator on its line, so where its body starts depends on how they are read";
  }
  const bodyStart = lineEnd + 1;
  const stripTabs = operator.type === "<<-";
  let lineStart = bodyStart;
  let endLineStart: number | undefined;
  while (lineStart <= source.length) {
    const next = source.indexOf("\n", lineStart);
    const line = source.slice(lineStart, next === -1 ? source.length : next);
    if ((stripTabs ? line.replace(/^\t+/, "") : line) === word) {
      endLineStart = lineStart;
      break;
    }
    if (next === -1) {
      break;
    }
    lineStart = next + 1;
  }
  if (endLineStart === undefined) {
    return `has a here-document that no line \`${word}\` ends`;
  }
  const body = node.children.find((child) => child.type === "heredoc_body");
  const end = node.children.find((child) => child.type === "heredoc_end");
  const endText = source.slice(endLineStart).split("\n")[0] ?? "";
  // With `<<-` bash strips leading tabs; the parser leaves them out of the body's first line
  // and puts those of the end line into the body, which means the same.
  const firstTabs = stripTabs ? (/^\t*/.exec(source.slice(bodyStart))?.[0].length ?? 0) : 0;
  const endTabs = endText.length - word.length;
  const treeBodyStart = body?.startIndex ?? bodyStart;
  const treeBodyEnd = body?.endIndex ?? endLineStart;
  if (
    treeBodyStart < bodyStart ||
    treeBodyStart > bodyStart + firstTabs ||
    treeBodyEnd < endLineStart ||
    treeBodyEnd > endLineStart + endTabs ||
    end === undefined ||
    end.endIndex !== endLineStart + endText.length ||
    end.text.replace(/^\t+/, "") !== word ||
    node.children.some(
      (child) =>
        child.isNamed &&
        child.startIndex > lineEnd &&
        child.endIndex <= endLineStart &&
        child.type !== "heredoc_body",
    )
  ) {
    return "has a here-document whose end the parser reads differently from bash";
  }
  if (!isQuoted) {
    const text = source.slice(bodyStart, endLineStart);
    const problem = findUnquotedBodyProblem(text);
    if (problem !== undefined) {
      return `has a here-document body that ${problem}; quote the delimiter (\`<<'${word}'\`) to keep the body as plain text`;
    }
  }
  return undefined;
}

function findUnquotedBodyProblem(text: string): string | undefined {
  if (text.includes("`")) {
    return "has a backquote, which bash runs as a command substitution";
  }
  if (text.includes("\\")) {
    return "has a backslash, which bash reads as an escape in it";
  }
  for (let index = text.indexOf("$"); index !== -1; index = text.indexOf("$", index + 1)) {
    const rest = text.slice(index);
    if (!PLAIN_EXPANSION.test(rest) && /^\$[^\s]/.test(rest)) {
      return `expands \`${rest.slice(0, 12).split("\n")[0] ?? ""}\`, a substitution bash runs`;
    }
  }
  return undefined;
}
