import type { Verdict } from "./command-classification.js";
import type { BashNode } from "./load-bash-parser.js";

/** Node types that may appear inside words; anything else makes the command unparseable. */
const WORD_PART_TYPES = new Set([
  "word",
  "string",
  "raw_string",
  "ansi_c_string",
  "translated_string",
  "concatenation",
  "number",
  "simple_expansion",
  "string_content",
  "variable_name",
  "special_variable_name",
  "brace_expression",
  "array",
  "heredoc_content",
  "regex",
  "extglob_pattern",
  "test_operator",
  "binary_expression",
  "unary_expression",
  "parenthesized_expression",
  "file_descriptor",
]);

/** `${x!}`-style operators refused: indirection, substring offsets (arithmetic) and `@` transforms (`@P` runs substitutions). */
const REFUSED_EXPANSION_OPERATORS = new Set(["!", ":", "@"]);
const ARITHMETIC_NODE_TYPES = new Set([
  "number",
  "binary_expression",
  "unary_expression",
  "parenthesized_expression",
  "ternary_expression",
]);
const ARITHMETIC_SIDE_EFFECTS = new Set([
  "=",
  "+=",
  "-=",
  "*=",
  "/=",
  "%=",
  "<<=",
  ">>=",
  "&=",
  "^=",
  "|=",
  "++",
  "--",
]);

/**
 * Checks everything inside a word: command and process substitutions are handed to
 * `onSubstitution` (their commands run too), and constructs that could run code the policy
 * cannot see are reported as unparseable.
 */
export function scanWord(node: BashNode, onSubstitution: (substitution: BashNode) => void): Verdict[] {
  const problems: Verdict[] = [];
  visit(node, onSubstitution, problems);
  return problems;
}

function unparseable(reason: string): Verdict {
  return { classification: "unparseable", reason };
}

function visit(node: BashNode, onSubstitution: (substitution: BashNode) => void, problems: Verdict[]): void {
  if (node.isMissing || node.isError) {
    problems.push(unparseable(`has a syntax error near \`${node.text}\``));
    return;
  }
  if (!node.isNamed) {
    return;
  }
  switch (node.type) {
    case "command_substitution":
    case "process_substitution":
      onSubstitution(node);
      return;
    case "arithmetic_expansion":
      problems.push(...checkArithmetic(node));
      return;
    case "expansion":
      problems.push(...checkExpansion(node));
      break;
    case "subscript":
      problems.push(...checkSubscript(node));
      break;
    default:
      if (!WORD_PART_TYPES.has(node.type)) {
        problems.push(
          unparseable(
            `uses \`${node.text}\` (${node.type.replaceAll("_", " ")}), which the policy does not judge`,
          ),
        );
        return;
      }
  }
  for (const child of node.children) {
    if (child !== null) {
      visit(child, onSubstitution, problems);
    }
  }
}

function checkExpansion(node: BashNode): Verdict[] {
  const refused = node.children.find(
    (child) => child !== null && !child.isNamed && REFUSED_EXPANSION_OPERATORS.has(child.type),
  );
  return refused === undefined || refused === null
    ? []
    : [
        unparseable(
          `uses the expansion \`${node.text}\`, whose \`${refused.type}\` form can evaluate text as code`,
        ),
      ];
}

/** Array indexes are arithmetic, and arithmetic can run commands hidden in variable values. */
function checkSubscript(node: BashNode): Verdict[] {
  const index = node.childForFieldName("index");
  if (index === null || /^(\d+|@|\*)$/.test(index.text)) {
    return [];
  }
  return [unparseable(`indexes an array with \`${index.text}\`, which bash evaluates as arithmetic`)];
}

/**
 * Arithmetic is accepted only over literal numbers: a variable inside `$(( ))` is itself
 * evaluated as arithmetic, so a value such as `a[$(rm -rf ~)]` would run a command.
 */
export function checkArithmetic(node: BashNode): Verdict[] {
  const inner = node.namedChildren.filter((child): child is BashNode => child !== null);
  const offending = inner.map(findArithmeticProblem).find((problem) => problem !== undefined);
  return offending === undefined
    ? []
    : [unparseable(`uses the arithmetic \`${node.text}\`, which ${offending}`)];
}

function findArithmeticProblem(node: BashNode): string | undefined {
  if (!node.isNamed) {
    return ARITHMETIC_SIDE_EFFECTS.has(node.type) ? "assigns a variable" : undefined;
  }
  if (!ARITHMETIC_NODE_TYPES.has(node.type)) {
    return "refers to variables or commands the policy cannot evaluate";
  }
  for (const child of node.children) {
    const problem = child === null ? undefined : findArithmeticProblem(child);
    if (problem !== undefined) {
      return problem;
    }
  }
  return undefined;
}
