import type { BashNode } from "./load-bash-parser.js";

/** One shell word as the policy sees it. */
export interface ShellWord {
  /** The text as written. */
  readonly source: string;
  /** After quote removal; parts computed at run time keep their source text. */
  readonly value: string;
  /** True when `value` is exactly the one word the shell would pass (nothing computed, no glob). */
  readonly isLiteral: boolean;
  /** Unquoted `*`, `?` or `[`: file names may replace the word, and a file name can look like an option. */
  readonly hasGlob: boolean;
  /** Starts with an unquoted `~`, which the shell replaces with a home directory. */
  readonly hasTilde: boolean;
  /** Word splitting, globbing, brace expansion or `"$@"` may turn it into several words (or none). */
  readonly mayBeSeveralWords: boolean;
  /** Set for a glob with nothing computed in it (`src/*.o`): the pattern, matched in the file system. */
  readonly globPattern?: string;
  /** For `{}` in `find -exec`: the word is a path found below one of these starting points. */
  readonly underPaths?: readonly ShellWord[];
  /**
   * A computed word that could become an option or several words at run time: an unquoted
   * expansion (word splitting), a glob or expansion at its start (`*`, `"$x"`), brace expansion.
   */
  readonly mayBeOption: boolean;
}

export type EvaluateWordResult =
  { readonly success: true; readonly value: ShellWord } | { readonly success: false; readonly error: string };

/** Nodes whose value only exists at run time. */
const COMPUTED_NODE_TYPES = new Set([
  "simple_expansion",
  "expansion",
  "command_substitution",
  "process_substitution",
  "arithmetic_expansion",
  "brace_expression",
]);

interface Piece {
  readonly value: string;
  readonly isComputed: boolean;
  /** Unquoted expansion whose result the shell splits into words. */
  readonly splits: boolean;
  readonly hasGlob: boolean;
  /** Unquoted text, for brace-expansion detection; quoted text becomes a neutral placeholder. */
  readonly skeleton: string;
}

/**
 * Computes what a word node stands for, without running anything. Any node type not known
 * here is reported, so the caller can refuse the whole command rather than guess.
 */
export function evaluateWord(node: BashNode): EvaluateWordResult {
  const pieces: Piece[] = [];
  const problem = collectPieces(node, pieces);
  if (problem !== undefined) {
    return { success: false, error: problem };
  }
  const skeleton = pieces.map((piece) => piece.skeleton).join("");
  // `{a,b}` and `{1..3}` split one word into several; only unquoted braces do that.
  const hasBraceExpansion = /\{[^{}]*(,|\.\.)[^{}]*\}/.test(skeleton);
  const first = pieces[0];
  // bash also expands `~` after the `=` (and after `:`) of a word that looks like an assignment,
  // even as a command's argument: `dd of=~/x` writes to the home folder.
  const hasTilde =
    (first !== undefined && !first.isComputed && first.skeleton.startsWith("~")) ||
    /^[A-Za-z_][A-Za-z0-9_]*=(~|[^]*:~)/.test(skeleton);
  const startsWithHome =
    /^"?\$(\{HOME\}|HOME(?![A-Za-z0-9_]))"?(\/|$)/.test(node.text) && !hasBraceExpansionIn(skeleton);
  const hasGlob = pieces.some((piece) => piece.hasGlob) || /\[.+\]/.test(skeleton.replace(/[QEX]/g, "q"));
  const isComputed = pieces.some((piece) => piece.isComputed);
  const value = pieces.map((piece) => piece.value).join("");
  const isLiteral = !isComputed && !hasGlob && !hasBraceExpansion;
  return {
    success: true,
    value: {
      source: node.text,
      value,
      isLiteral,
      hasGlob,
      hasTilde,
      // `$HOME/x`: the home folder is an absolute path, never an option.
      mayBeOption:
        !isLiteral &&
        !startsWithHome &&
        (hasBraceExpansion || pieces.some((piece) => piece.splits) || /^[-*?[$`{]/.test(value)),
      mayBeSeveralWords: hasBraceExpansion || hasGlob || pieces.some((piece) => piece.splits),
      ...(hasGlob && !isComputed && !hasBraceExpansion ? { globPattern: value } : {}),
    },
  };
}

function collectPieces(node: BashNode, pieces: Piece[]): string | undefined {
  if (node.isMissing || node.isError) {
    return `has \`${node.text}\`, which the parser could not read`;
  }
  switch (node.type) {
    case "word":
      pieces.push(decodeUnquotedWord(node.text));
      return undefined;
    case "number":
      pieces.push({
        value: node.text,
        isComputed: false,
        splits: false,
        hasGlob: false,
        skeleton: node.text,
      });
      return undefined;
    case "raw_string":
      pieces.push(quoted(node.text.slice(1, -1)));
      return undefined;
    case "ansi_c_string":
      pieces.push(quoted(decodeAnsiC(node.text.slice(2, -1))));
      return undefined;
    case "string":
    case "translated_string":
      return collectDoubleQuoted(node, pieces);
    case "concatenation":
      for (const child of node.namedChildren) {
        if (child === null) {
          continue;
        }
        const problem = collectPieces(child, pieces);
        if (problem !== undefined) {
          return problem;
        }
      }
      // Anonymous tokens inside a concatenation (e.g. a bare `$`) carry meaning we do not model.
      return node.children.some((child) => child !== null && !child.isNamed)
        ? `has \`${node.text}\`, a quoting form the policy does not read`
        : undefined;
    default:
      if (COMPUTED_NODE_TYPES.has(node.type)) {
        // Process substitution becomes one `/dev/fd/N` path; the others are split into words.
        const splits = node.type !== "process_substitution";
        pieces.push({ value: node.text, isComputed: true, splits, hasGlob: false, skeleton: "X" });
        return undefined;
      }
      return `has \`${node.text}\`, which the policy does not read as a word`;
  }
}

function collectDoubleQuoted(node: BashNode, pieces: Piece[]): string | undefined {
  node.children.forEach((child, index) => {
    // Inside double quotes the parser folds blanks before a token or an expansion into it.
    const blanks = /^[ \t]*/.exec(child.text)?.[0] ?? "";
    if (index === 0 && (child.type === '"' || child.type === '$"')) {
      return;
    }
    if (blanks !== "" && child.type !== "string_content") {
      pieces.push(quoted(blanks));
    }
    if (child.type === "string_content") {
      pieces.push(quoted(decodeDoubleQuoted(child.text)));
    } else if (COMPUTED_NODE_TYPES.has(child.type)) {
      const text = child.text.slice(blanks.length);
      // `"$@"` and `"${a[@]}"` stay quoted but still become one word per element.
      const splits = /^\$(@|\{@\}|\{[A-Za-z_][A-Za-z0-9_]*\[@\]\})$/.test(text);
      pieces.push({ value: text, isComputed: true, splits, hasGlob: false, skeleton: "X" });
    }
  });
  const stray = node.children.find(
    (child, index) =>
      child.type !== "string_content" &&
      !COMPUTED_NODE_TYPES.has(child.type) &&
      !(child.type === '"' && (index === 0 || index === node.children.length - 1)),
  );
  return stray === undefined
    ? undefined
    : `has \`${node.text}\`, whose ${stray.type.replaceAll("_", " ")} the policy does not read`;
}

function quoted(value: string): Piece {
  return { value, isComputed: false, splits: false, hasGlob: false, skeleton: "Q" };
}

/** Backslash removes the special meaning of the next character; backslash-newline vanishes. */
function decodeUnquotedWord(text: string): Piece {
  let value = "";
  let skeleton = "";
  let hasGlob = false;
  for (let index = 0; index < text.length; index += 1) {
    const character = text.charAt(index);
    if (character === "\\") {
      const next = text.charAt(index + 1);
      index += 1;
      if (next !== "\n") {
        value += next;
        skeleton += "E";
      }
      continue;
    }
    // `[` starts a bracket expression only with a `]` after it; the word decides (evaluateWord).
    if (character === "*" || character === "?") {
      hasGlob = true;
    }
    value += character;
    skeleton += character;
  }
  return { value, isComputed: false, splits: false, hasGlob, skeleton };
}

/** Inside double quotes a backslash only escapes `$`, backquote, `"`, backslash and newline. */
function decodeDoubleQuoted(text: string): string {
  return text.replace(/\\([$`"\\\n])/g, (_match, escaped: string) => (escaped === "\n" ? "" : escaped));
}

const ANSI_C_SIMPLE: Readonly<Record<string, string>> = {
  a: "\x07",
  b: "\b",
  e: "\x1b",
  E: "\x1b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "?": "?",
};

/** Decodes the body of `$'...'` the way bash does, so `$'\x72m'` is seen as `rm`. */
export function decodeAnsiC(body: string): string {
  return body.replace(
    /\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)/gs,
    (match, escape: string) => {
      const head = escape.charAt(0);
      if (head === "x" || head === "u" || head === "U") {
        const codePoint = Number.parseInt(escape.slice(1), 16);
        return codePoint <= 0x10ffff ? String.fromCodePoint(codePoint) : "\ufffd";
      }
      if (/[0-7]/.test(head)) {
        return String.fromCodePoint(Number.parseInt(escape, 8) & 0xff);
      }
      if (head === "c") {
        return String.fromCodePoint(escape.charCodeAt(1) & 0x1f);
      }
      return ANSI_C_SIMPLE[escape] ?? match;
    },
  );
}

function hasBraceExpansionIn(skeleton: string): boolean {
  return /\{[^{}]*(,|\.\.)[^{}]*\}/.test(skeleton);
}
