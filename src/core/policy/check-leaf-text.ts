/**
 * The text a leaf of the tree may hold. A leaf is read as data; if its text holds something bash
 * would read as code or as a word boundary (a `$(`, a backquote, a quote, a line continuation),
 * tree-sitter has read the line differently from bash, and the command is refused.
 */

/** Whitespace tree-sitter skips between tokens but bash keeps inside a word (JavaScript's `\s` minus blank and newline). */
const FOREIGN_WHITESPACE = /[\r\v\f\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]/;
/** Characters that end or change an unquoted bash word; a leaf holding one was split differently. */
const WORD_BREAKING = /[\s$`'"()<>|&;]/;

/** Control characters (below 0x20, and DEL) are never part of a word the policy reads. */
function isControlCharacter(character: string): boolean {
  const code = character.charCodeAt(0);
  return code < 0x20 || code === 0x7f;
}
/** Test operators bash knows; any other `-x` in an operator position is not one. */
const TEST_OPERATOR = /^-(a|b|c|d|e|f|g|h|k|p|r|s|t|u|w|x|G|L|N|O|S|z|n|o|v|R|eq|ne|lt|le|gt|ge|nt|ot|ef)$/;

export type LeafContext = "word" | "expansion-operand" | "arithmetic";

/** Undefined when the leaf's text means to bash what it means to the policy; otherwise why not. */
export function checkLeafText(type: string, text: string, context: LeafContext): string | undefined {
  switch (type) {
    case "word":
      return checkUnquoted(text, context === "expansion-operand" ? /[ \t]/g : undefined);
    case "extglob_pattern":
      return checkUnquoted(text.replace(/[()|!@+]/g, "x"), undefined);
    case "regex":
      return checkPattern(text);
    case "raw_string":
      return /^'[^']*'$/.test(text) ? undefined : "is a single-quoted string the parser did not close";
    case "ansi_c_string":
      return checkAnsiC(text);
    case "string_content":
      return checkDoubleQuotedText(text);
    case "number":
      return context === "arithmetic"
        ? /^(0[xX][0-9a-fA-F]+|[0-9]+(#[0-9a-zA-Z@_]+)?)$/.test(text)
          ? undefined
          : "is not a number bash reads the same way"
        : /^-?[0-9]+$/.test(text)
          ? undefined
          : "is not a plain number";
    case "variable_name":
      // Inside arithmetic the parser reads a hexadecimal number such as `0x1f` as a name.
      return /^[A-Za-z_][A-Za-z0-9_]*$/.test(text) ||
        (context === "arithmetic" && /^0[xX][0-9a-fA-F]+$/.test(text))
        ? undefined
        : "is not a variable name";
    case "special_variable_name":
      return /^[*@#?$!0-9_-]$/.test(text) ? undefined : "is not a special parameter";
    case "file_descriptor":
      return /^[0-9]$/.test(text) ? undefined : "is not a single-digit file descriptor";
    case "test_operator":
      return TEST_OPERATOR.test(text) ? undefined : "is not a test operator bash knows";
    case "comment":
    case "heredoc_start":
    case "heredoc_end":
    case "heredoc_content":
      // Comments are never run; here-documents are checked against an independent reading.
      return undefined;
    default:
      return "is a kind of text the policy does not read";
  }
}

/** An unquoted word: escapes are fine, anything that breaks or expands a word is not. */
function checkUnquoted(text: string, allowed: RegExp | undefined): string | undefined {
  const checked = allowed === undefined ? text : text.replace(allowed, "x");
  for (let index = 0; index < checked.length; index += 1) {
    const character = checked.charAt(index);
    if (character === "\\") {
      const next = checked.charAt(index + 1);
      if (next === "\n" || next === "") {
        return "continues a line inside a word (a backslash before a newline), which bash joins but the parser splits";
      }
      if (next === "\r") {
        return "escapes a carriage return, which the parser skips as blank";
      }
      index += 1;
      continue;
    }
    if (FOREIGN_WHITESPACE.test(character)) {
      return "holds a control or Unicode space character, which the parser treats as blank and bash does not";
    }
    if (WORD_BREAKING.test(character) || isControlCharacter(character)) {
      return `holds \`${character === "\n" ? "\\n" : character}\`, which bash reads as syntax, not as part of the word`;
    }
  }
  return undefined;
}

/** A pattern inside `${x%…}` or after `=~`: bash expands it, so no expansion may hide in it. */
function checkPattern(text: string): string | undefined {
  if (/\\\n/.test(text)) {
    return "continues a line inside a pattern";
  }
  if (/[`'"]/.test(text) || /\$(?!$)/.test(text) || FOREIGN_WHITESPACE.test(text)) {
    return "holds a quote, `$` or backquote that bash would expand, which the parser left as text";
  }
  return undefined;
}

/** Text between double quotes: `\$`, `` \` ``, `\"`, `\\` are escapes; an unread `$(` or backquote is code. */
function checkDoubleQuotedText(text: string): string | undefined {
  for (let index = 0; index < text.length; index += 1) {
    const character = text.charAt(index);
    if (character === "\\") {
      if (text.charAt(index + 1) === "\n") {
        return "continues a line inside a double-quoted string";
      }
      index += 1;
      continue;
    }
    if (character === "`") {
      return "holds a backquote, which bash runs as a command substitution";
    }
    if (character === "$" && /^[A-Za-z0-9_{([#?*@!$-]/.test(text.charAt(index + 1))) {
      return "holds an expansion the parser did not read";
    }
  }
  return undefined;
}

/** Escapes of `$'…'` whose meaning is the same in every locale and never ends the string early. */
const ANSI_C_ESCAPE = /\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3}|[abeEfnrtv\\'"?])/g;

function checkAnsiC(text: string): string | undefined {
  if (!text.startsWith("$'") || !text.endsWith("'") || text.length < 3) {
    return "is a `$'…'` string the parser did not close";
  }
  const body = text.slice(2, -1);
  const rest = body.replace(ANSI_C_ESCAPE, (escape: string) => {
    const code = /^\\x/.test(escape)
      ? Number.parseInt(escape.slice(2), 16)
      : /^\\[0-7]/.test(escape)
        ? Number.parseInt(escape.slice(1), 8)
        : 1;
    // NUL ends the word in bash; bytes above 0x7f depend on the locale.
    return code === 0 || code > 0x7f ? "\\!" : "";
  });
  if (rest.includes("\\")) {
    return "uses a `$'…'` escape (such as `\\u`, `\\c`, a NUL or a byte above 0x7f) whose meaning depends on the locale or cuts the word";
  }
  if (rest.includes("'")) {
    return "is a `$'…'` string whose quotes the parser read differently";
  }
  return undefined;
}
