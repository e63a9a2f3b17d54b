import type { Verdict } from "./command-classification.js";
import { checkLeafText, type LeafContext } from "./check-leaf-text.js";
import type { BashNode } from "./load-bash-parser.js";
import { checkHereDocument } from "./check-here-document.js";
import { NODE_RULES, REFUSED_CONSTRUCTS, REFUSED_TOKENS, type GapRule } from "./syntax-subset.js";
import type { ShellDialect } from "./unwrap-shell.js";

/** Node types whose children are read as arithmetic. */
const ARITHMETIC_PARENTS = new Set(["arithmetic_expansion"]);
/** Leaves with no children of their own. */
const LEAF_TYPES = new Set([
  "word",
  "number",
  "raw_string",
  "ansi_c_string",
  "string_content",
  "variable_name",
  "special_variable_name",
  "regex",
  "extglob_pattern",
  "file_descriptor",
  "test_operator",
  "comment",
  "heredoc_start",
  "heredoc_end",
  "heredoc_content",
]);

/**
 * Checks that every node of the tree is of a type the policy models, that every anonymous token
 * is one its parent may have, that every leaf holds text bash reads as tree-sitter did, and that
 * nothing stands between nodes but blanks. Returns one verdict per problem found (at most a few).
 */
export function checkSyntaxSubset(root: BashNode, source: string, dialect: ShellDialect): Verdict[] {
  const problems: Verdict[] = [];
  for (const [gap, start] of [
    [source.slice(0, root.startIndex), 0],
    [source.slice(root.endIndex), root.endIndex],
  ] as const) {
    const problem = checkGap(gap, source, start, "statement");
    if (problem !== undefined) {
      problems.push(refuse(`has text outside the parsed command: it ${problem}`));
    }
  }
  visit(root, { source, dialect, problems, rootText: root.text.trim() }, "word", false);
  return problems;
}

interface Walk {
  /** A problem in the whole command is said without quoting it again. */
  readonly rootText: string;
  readonly source: string;
  readonly dialect: ShellDialect;
  readonly problems: Verdict[];
}

/** bash syntax that dash (`sh`) reads as something else, by node type or token. */
const BASH_ONLY: ReadonlyMap<string, string> = new Map([
  ["ansi_c_string", "a `$'…'` string, which dash reads as `$` followed by a quoted string"],
  ["process_substitution", "process substitution, which dash does not have"],
  ["herestring_redirect", "a here-string, which dash does not have"],
  ["[[", "`[[ … ]]`, which dash does not have"],
  ["&>", "`&>`, which dash reads as `&` (background) and `>`"],
  ["&>>", "`&>>`, which dash reads as `&` (background) and `>>`"],
  ["|&", "`|&`, which dash does not have"],
  ["function", "the `function` keyword, which dash does not have"],
]);

function refuse(reason: string): Verdict {
  return { classification: "unparseable", reason };
}

function visit(node: BashNode, walk: Walk, context: LeafContext, insideSubstitution: boolean): void {
  const { source, problems } = walk;
  if (problems.length >= 3) {
    return;
  }
  const bashOnly = walk.dialect === "posix" ? BASH_ONLY.get(node.type) : undefined;
  if (bashOnly !== undefined) {
    problems.push(refuse(`has \`${abbreviate(node.text)}\` in a command string run by \`sh\`: ${bashOnly}`));
    return;
  }
  if (node.isMissing) {
    problems.push(refuse(`is missing \`${node.type}\`, so it could not be parsed as shell`));
    return;
  }
  if (!node.isNamed) {
    // Tokens are checked by their parent.
    return;
  }
  const refused = REFUSED_CONSTRUCTS.get(node.type);
  if (refused !== undefined) {
    problems.push(refuse(describe(node, walk, refused)));
    return;
  }
  const rule = NODE_RULES.get(node.type);
  if (rule === undefined) {
    problems.push(
      refuse(
        `has \`${abbreviate(node.text)}\` (${node.type.replaceAll("_", " ")}), a construct the policy does not model`,
      ),
    );
    return;
  }
  if (LEAF_TYPES.has(node.type)) {
    const problem =
      node.children.length > 0
        ? "has parts the policy does not read"
        : checkLeafText(node.type, node.text, context);
    if (problem !== undefined) {
      problems.push(refuse(`has \`${abbreviate(node.text)}\`, which ${problem}`));
    }
    return;
  }
  for (const child of node.children) {
    if (child.isNamed || child.isMissing) {
      continue;
    }
    const refusedToken =
      REFUSED_TOKENS.get(child.type) ??
      (walk.dialect === "posix" && BASH_ONLY.has(child.type)
        ? `is read differently by \`sh\`: ${BASH_ONLY.get(child.type) ?? ""}`
        : undefined);
    if (refusedToken !== undefined) {
      problems.push(refuse(describe(node, walk, refusedToken)));
      return;
    }
    if (
      child.type === "$" &&
      node.children.some((other) => other.type === "string" && other.startIndex === child.endIndex)
    ) {
      problems.push(refuse(describe(node, walk, REFUSED_TOKENS.get('$"') ?? "")));
      return;
    }
    if (!rule.tokens.has(child.type) || !isTokenText(child, node)) {
      problems.push(
        refuse(
          `has \`${child.text.trim()}\` in ${rule.construct} (\`${abbreviate(node.text)}\`), where the policy does not model it`,
        ),
      );
      return;
    }
  }
  if (node.type === "heredoc_redirect") {
    const problem = checkHereDocument(node, source, insideSubstitution);
    if (problem !== undefined) {
      problems.push(refuse(`has \`${abbreviate(node.text)}\`, which ${problem}`));
      return;
    }
  }
  // A here-document's body was compared with bash's reading above.
  const gapProblem = node.type === "heredoc_body" ? undefined : checkChildGaps(node, source, rule.gaps);
  if (gapProblem !== undefined) {
    problems.push(refuse(`has \`${abbreviate(node.text)}\`, which ${gapProblem}`));
    return;
  }
  const childContext: LeafContext = ARITHMETIC_PARENTS.has(node.type)
    ? "arithmetic"
    : node.type === "expansion"
      ? "expansion-operand"
      : context === "arithmetic" && (node.type.endsWith("_expression") || node.type === "number")
        ? "arithmetic"
        : node.type === "concatenation" && context === "expansion-operand"
          ? "expansion-operand"
          : "word";
  const childInsideSubstitution =
    insideSubstitution || node.type === "command_substitution" || node.type === "process_substitution";
  for (const child of node.children) {
    visit(child, walk, childContext, childInsideSubstitution);
  }
}

/** A token's text is its type; inside double quotes the parser folds the blanks before it into it. */
function isTokenText(token: BashNode, parent: BashNode): boolean {
  if (token.text === token.type) {
    return true;
  }
  return (
    ["string", "simple_expansion", "expansion", "command_substitution", "arithmetic_expansion"].includes(
      parent.type,
    ) &&
    /^[ \t]+$/.test(token.text.slice(0, token.text.length - token.type.length)) &&
    token.text.endsWith(token.type)
  );
}

function checkChildGaps(node: BashNode, source: string, gaps: GapRule): string | undefined {
  let position = node.startIndex;
  for (const child of node.children) {
    const problem = checkGap(source.slice(position, child.startIndex), source, position, gaps);
    if (problem !== undefined) {
      return problem;
    }
    position = Math.max(position, child.endIndex);
  }
  return checkGap(source.slice(position, node.endIndex), source, position, gaps);
}

/**
 * Text between two nodes. Between statement parts bash and the parser both skip blanks and
 * newlines; between the words of one command a newline ends the command, though the parser may
 * read on (a line that is only a backslash-newline joins the next line to the command before
 * it: `ls⏎\⏎rm x` is `ls` and `rm x` to bash, one command to the parser); a backslash-newline is skipped the same way only after a blank or an operator,
 * because bash removes it before splitting words (`ls -\⏎o` is `ls -o`).
 */
function checkGap(gap: string, source: string, start: number, rule: GapRule): string | undefined {
  if (gap === "") {
    return undefined;
  }
  if (rule === "none") {
    return "has text the parser did not place inside a word";
  }
  for (let index = 0; index < gap.length; index += 1) {
    const character = gap.charAt(index);
    if (character === " " || character === "\t") {
      continue;
    }
    if (character === "\n") {
      if (rule === "line") {
        return "goes on after a newline, which ends the command in bash, while the parser reads the next line as more of it";
      }
      continue;
    }
    if (character === "\\" && gap.charAt(index + 1) === "\n") {
      const before = start + index > 0 ? source.charAt(start + index - 1) : "\n";
      const after = source.charAt(start + index + 2);
      if (!/[ \t\n;|&]/.test(before)) {
        return "continues a line right after a word (a backslash before a newline), which bash joins into the word but the parser splits";
      }
      // After an operator, bash joins what follows into it (`&\⏎>f` is `&>f`).
      if (/[;|&]/.test(before) && /[;|&<>(]/.test(after)) {
        return "continues a line between two operator characters, which bash joins into one operator";
      }
      index += 1;
      continue;
    }
    return `has \`${character === "\r" ? "\\r" : character}\` where the parser skips text that bash reads`;
  }
  return undefined;
}

function describe(node: BashNode, walk: Walk, why: string): string {
  return node.text.trim() === walk.rootText ? why : `has \`${abbreviate(node.text)}\`, which ${why}`;
}

function abbreviate(text: string): string {
  const trimmed = text.trim();
  return trimmed.length > 80 ? `${trimmed.slice(0, 80)}…` : trimmed;
}
