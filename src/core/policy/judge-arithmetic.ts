import type { Verdict } from "./command-classification.js";
import type { BashNode } from "./load-bash-parser.js";

const EXPRESSION_TYPES = new Set([
  "number",
  "binary_expression",
  "unary_expression",
  "parenthesized_expression",
  "ternary_expression",
]);
const ASSIGNING_OPERATORS = new Set([
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
  "++",
  "--",
]);

/**
 * `$(( … ))` is approved only over literal numbers. Bash evaluates a variable inside arithmetic
 * by reading its value as another arithmetic expression, and an array subscript in that value
 * is expanded, command substitutions included: with `x='a[$(rm -rf ~)]'`, `$((x))` runs `rm`.
 */
export function judgeArithmetic(node: BashNode): Verdict[] {
  if (node.children[0]?.type !== "$((" || node.children.at(-1)?.type !== "))") {
    return [
      {
        classification: "unparseable",
        reason: `uses the arithmetic \`${node.text}\` in a form the policy does not model`,
      },
    ];
  }
  for (const child of node.children.slice(1, -1)) {
    const problem = findProblem(child);
    if (problem !== undefined) {
      return [
        { classification: "unparseable", reason: `uses the arithmetic \`${node.text}\`, which ${problem}` },
      ];
    }
  }
  return [];
}

function findProblem(node: BashNode): string | undefined {
  if (!node.isNamed) {
    return ASSIGNING_OPERATORS.has(node.type) ? "assigns a variable" : undefined;
  }
  const isHexNumber = node.type === "variable_name" && /^0[xX][0-9a-fA-F]+$/.test(node.text);
  if (!EXPRESSION_TYPES.has(node.type) && !isHexNumber) {
    return `evaluates \`${node.text}\`, and bash evaluates variable values and command output inside arithmetic as further arithmetic, where an array subscript runs commands`;
  }
  for (const child of node.children) {
    const problem = findProblem(child);
    if (problem !== undefined) {
      return problem;
    }
  }
  return undefined;
}
