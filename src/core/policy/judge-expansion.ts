import type { Verdict } from "./command-classification.js";
import { isAssignableName } from "./assignment-names.js";
import type { BashNode } from "./load-bash-parser.js";

/** Operators whose operand is a word, a pattern or nothing; none of them evaluates text as code. */
const OPERAND_OPERATORS = new Set([
  "-",
  ":-",
  "+",
  ":+",
  "?",
  ":?",
  "#",
  "##",
  "%",
  "%%",
  "/",
  "//",
  "/#",
  "/%",
  "^",
  "^^",
  ",",
  ",,",
]);
/** `${x=word}` and `${x:=word}` assign the word to `x` when it is unset. */
const ASSIGNING_OPERATORS = new Set(["=", ":="]);
const PARAMETER_TYPES = new Set(["variable_name", "special_variable_name", "subscript"]);

function refuse(node: BashNode, why: string): Verdict[] {
  return [{ classification: "unparseable", reason: `uses the expansion \`${node.text}\`, which ${why}` }];
}

/**
 * `${…}` in the forms whose meaning is plain string work: `${x}`, `${#x}`, `${x:-word}`,
 * `${x#pattern}`, `${x/pattern/string}`, `${x^^}` and their kin. Refused: indirection `${!x}`
 * (the value names another variable, and a name such as `a[$(cmd)]` runs the command), substrings
 * `${x:offset:length}` (offset and length are arithmetic), transformations `${x@P}` (prompt
 * expansion runs command substitutions) and anything the parser split in another way.
 * The operands themselves are scanned by the caller.
 */
export function judgeExpansion(node: BashNode): Verdict[] {
  const children = node.children;
  if (children[0]?.type !== "${" || children.at(-1)?.type !== "}") {
    return refuse(node, "has a shape the policy does not model");
  }
  const inner = children.slice(1, -1);
  let index = 0;
  const first = inner[0];
  if (first?.type === "!") {
    return refuse(
      node,
      "is an indirect expansion: bash reads the value as the name of another variable, and a name with an array subscript such as `a[$(cmd)]` runs the command",
    );
  }
  let isLength = false;
  if (first?.type === "#" && !first.isNamed) {
    isLength = true;
    index += 1;
  }
  const parameter = inner[index];
  if (parameter === undefined) {
    // `${#}` is the number of positional parameters.
    return isLength ? [] : refuse(node, "names no parameter");
  }
  if (!PARAMETER_TYPES.has(parameter.type)) {
    return refuse(node, "does not name a plain parameter");
  }
  index += 1;
  const operator = inner[index];
  if (operator === undefined) {
    return [];
  }
  if (isLength) {
    return refuse(node, "combines `#` with an operator");
  }
  if (operator.isNamed) {
    return refuse(node, "has a shape the policy does not model");
  }
  if (operator.type === ":") {
    return refuse(
      node,
      "takes a substring, whose offset and length bash evaluates as arithmetic (arithmetic can run commands hidden in variable values)",
    );
  }
  if (operator.type === "@") {
    const transformation = inner[index + 1]?.type ?? "";
    return refuse(
      node,
      `transforms the value with \`@${transformation}\`; these operators are not modelled (\`@P\` expands the value like a prompt, which runs command substitutions)`,
    );
  }
  if (ASSIGNING_OPERATORS.has(operator.type)) {
    return parameter.type === "variable_name" && isAssignableName(parameter.text)
      ? checkOperands(node, inner.slice(index + 1))
      : refuse(
          node,
          `assigns \`${parameter.text}\`, a variable that changes how bash or later commands behave`,
        );
  }
  if (!OPERAND_OPERATORS.has(operator.type)) {
    return refuse(node, `uses the operator \`${operator.type}\`, which the policy does not model`);
  }
  return checkOperands(node, inner.slice(index + 1));
}

/** Operands are words; only `/` may appear again, between the pattern and the replacement. */
function checkOperands(node: BashNode, operands: readonly BashNode[]): Verdict[] {
  let slashes = 0;
  for (const operand of operands) {
    if (operand.isNamed) {
      continue;
    }
    if (operand.type === "/" && slashes === 0) {
      slashes += 1;
      continue;
    }
    return refuse(node, `has \`${operand.type}\` where the policy expects a word`);
  }
  return [];
}
