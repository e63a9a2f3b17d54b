/**
 * The bash syntax the policy models, as tree-sitter-bash names it. Every node of an approved
 * tree has a type listed here with what it means; anything else is refused by name. The
 * meanings are enforced by the walker (`judge-script.ts`) and the word reader (`scan-word.ts`);
 * this table only says which nodes and tokens may appear at all, and how their text and the
 * text between them must look for tree-sitter's reading to be bash's reading.
 */

/**
 * Where text between children may stand: statements allow blanks and newlines, the words of one
 * command (and its redirections) only blanks and line continuations, because a newline ends a
 * command in bash wherever the parser reads on; words nothing.
 */
export type GapRule = "statement" | "line" | "none";

export interface NodeRule {
  /** What the node is, in a reason: "a pipeline". */
  readonly construct: string;
  /** Anonymous tokens that may appear as its children. */
  readonly tokens: ReadonlySet<string>;
  readonly gaps: GapRule;
}

const TERMINATORS = [";", "&"];
const ARITHMETIC_OPERATORS = [
  "+",
  "-",
  "*",
  "/",
  "%",
  "**",
  "<<",
  ">>",
  "&",
  "|",
  "^",
  "&&",
  "||",
  "==",
  "!=",
  "<",
  ">",
  "<=",
  ">=",
  ",",
  "=",
  "+=",
  "-=",
  "*=",
  "/=",
  "%=",
  "**=",
  "<<=",
  ">>=",
  "&=",
  "^=",
  "|=",
];
/** `[[ ]]` operators written as anonymous tokens; `-eq` and friends are `test_operator` nodes. */
const TEST_OPERATORS = ["==", "=", "!=", "<", ">", "=~", "&&", "||", "-a", "-o"];
/** Operators of `${…}`; `judge-expansion.ts` decides which forms are approved. */
const EXPANSION_OPERATORS = [
  "#",
  "##",
  "%",
  "%%",
  "/",
  "//",
  "/#",
  "/%",
  "-",
  ":-",
  "=",
  ":=",
  "+",
  ":+",
  "?",
  ":?",
  "^",
  "^^",
  ",",
  ",,",
  ":",
  "!",
  "@",
  "*",
  "A",
  "E",
  "K",
  "L",
  "P",
  "Q",
  "U",
  "a",
  "k",
  "u",
];

function rule(construct: string, gaps: GapRule, tokens: readonly string[] = []): NodeRule {
  return { construct, gaps, tokens: new Set(tokens) };
}

export const NODE_RULES: ReadonlyMap<string, NodeRule> = new Map<string, NodeRule>([
  // Statements.
  ["program", rule("a command line", "statement", TERMINATORS)],
  ["list", rule("a list (`&&`, `||`)", "statement", ["&&", "||"])],
  ["pipeline", rule("a pipeline", "statement", ["|", "|&"])],
  ["subshell", rule("a subshell `( … )`", "statement", ["(", ")", ...TERMINATORS])],
  ["compound_statement", rule("a group `{ …; }`", "statement", ["{", "}", ...TERMINATORS])],
  ["negated_command", rule("a negation `!`", "statement", ["!"])],
  ["if_statement", rule("an `if` statement", "statement", ["if", "then", "fi", ...TERMINATORS])],
  ["elif_clause", rule("an `elif` clause", "statement", ["elif", "then", ...TERMINATORS])],
  ["else_clause", rule("an `else` clause", "statement", ["else", ...TERMINATORS])],
  ["while_statement", rule("a `while` or `until` loop", "statement", ["while", "until", ...TERMINATORS])],
  ["do_group", rule("a `do … done` body", "statement", ["do", "done", ...TERMINATORS])],
  ["for_statement", rule("a `for … in` loop", "statement", ["for", "in", ...TERMINATORS])],
  ["case_statement", rule("a `case` statement", "statement", ["case", "in", "esac", ...TERMINATORS])],
  ["case_item", rule("a `case` branch", "statement", ["(", ")", "|", ";;", ";&", ";;&", ...TERMINATORS])],
  ["function_definition", rule("a function definition", "statement", ["function", "(", ")", ...TERMINATORS])],
  ["command", rule("a simple command", "line")],
  ["command_name", rule("a command name", "none")],
  ["redirected_statement", rule("a redirected command", "line")],
  [
    "file_redirect",
    rule("a redirection", "line", [">", ">>", ">|", "&>", "&>>", ">&", "<", "<&", "<&-", ">&-", "<>"]),
  ],
  [
    "heredoc_redirect",
    rule("a here-document", "statement", ["<<", "<<-", "&&", "||", "|", "|&", ...TERMINATORS]),
  ],
  ["herestring_redirect", rule("a here-string `<<<`", "line", ["<<<"])],
  ["variable_assignment", rule("an assignment", "none", ["=", "+="])],
  ["variable_assignments", rule("assignments", "line")],
  [
    "declaration_command",
    rule("a declaration", "line", ["declare", "typeset", "export", "readonly", "local"]),
  ],
  ["unset_command", rule("`unset`", "line", ["unset"])],
  ["test_command", rule("a test `[ … ]` or `[[ … ]]`", "line", ["[[", "]]", "[", "]"])],
  ["comment", rule("a comment", "none")],
  // Words.
  ["word", rule("a word", "none")],
  ["number", rule("a number", "none")],
  ["raw_string", rule("a single-quoted string", "none")],
  ["ansi_c_string", rule("a `$'…'` string", "none")],
  ["string", rule("a double-quoted string", "none", ['"'])],
  ["string_content", rule("the text of a double-quoted string", "none")],
  ["concatenation", rule("a word made of several parts", "none")],
  ["simple_expansion", rule("a variable expansion `$x`", "none", ["$"])],
  ["expansion", rule("a parameter expansion `${…}`", "none", ["${", "}", ...EXPANSION_OPERATORS])],
  ["variable_name", rule("a variable name", "none")],
  ["special_variable_name", rule("a special parameter", "none")],
  ["subscript", rule("an array subscript", "none", ["[", "]"])],
  ["command_substitution", rule("a command substitution `$( … )`", "statement", ["$(", ")"])],
  ["process_substitution", rule("a process substitution", "statement", ["<(", ">(", ")"])],
  ["arithmetic_expansion", rule("an arithmetic expansion `$(( … ))`", "statement", ["$((", "))"])],
  ["brace_expression", rule("a brace expansion `{a..b}`", "none", ["{", "..", "}"])],
  ["regex", rule("a pattern", "none")],
  ["extglob_pattern", rule("a pattern", "none")],
  ["file_descriptor", rule("a file descriptor number", "none")],
  ["heredoc_start", rule("a here-document delimiter", "none")],
  ["heredoc_body", rule("a here-document body", "none")],
  ["heredoc_content", rule("here-document text", "none")],
  ["heredoc_end", rule("a here-document delimiter", "none")],
  // Expressions of `[[ ]]` and `$(( ))`.
  ["test_operator", rule("a test operator", "none")],
  [
    "binary_expression",
    rule("an expression", "statement", [...new Set([...ARITHMETIC_OPERATORS, ...TEST_OPERATORS])]),
  ],
  ["unary_expression", rule("an expression", "statement", ["!", "-", "+", "~"])],
  ["parenthesized_expression", rule("a parenthesised expression", "statement", ["(", ")"])],
  ["ternary_expression", rule("a conditional expression", "statement", ["?", ":"])],
]);

/** Node types refused wherever they appear, with the reason. */
export const REFUSED_CONSTRUCTS: ReadonlyMap<string, string> = new Map([
  [
    "c_style_for_statement",
    "is a C-style `for (( … ))` loop, whose expressions bash evaluates as arithmetic (arithmetic can run commands hidden in variable values)",
  ],
  [
    "array",
    "assigns an array `( … )`, whose `[index]=` elements bash evaluates as arithmetic, which can run commands",
  ],
  ["translated_string", 'uses a `$"…"` locale-translated string, whose text comes from a message catalogue'],
  ["postfix_expression", "uses `++` or `--`, which assign variables inside arithmetic"],
  ["ERROR", "could not be parsed as shell"],
]);

/** Tokens refused wherever they appear, with the reason. */
export const REFUSED_TOKENS: ReadonlyMap<string, string> = new Map([
  [
    "`",
    "uses backquote command substitution `` `…` ``, whose backslashes bash reads differently from the parser; write `$( … )` instead",
  ],
  ["$`", "uses a backquote form the policy does not read"],
  ["$[", "uses the obsolete `$[ … ]` arithmetic form; write `$(( … ))`"],
  [
    "((",
    "is an arithmetic command `(( … ))`, which can assign variables and evaluates array subscripts and variable values as code",
  ],
  ["select", "is a `select` menu loop, which runs its body on choices read from standard input"],
  ["unsetenv", "uses `unsetenv`, which bash does not have"],
  ['$"', 'uses a `$"…"` locale-translated string, whose text comes from a message catalogue'],
]);
