import type { Verdict } from "./command-classification.js";
import { judgeArithmetic } from "./judge-arithmetic.js";
import { judgeExpansion } from "./judge-expansion.js";
import type { BashNode } from "./load-bash-parser.js";

/** Leaves whose text is data once the syntax check has accepted it. */
const DATA_LEAVES = new Set([
  "word",
  "number",
  "raw_string",
  "ansi_c_string",
  "string_content",
  "variable_name",
  "special_variable_name",
  "regex",
  "extglob_pattern",
  "test_operator",
  "file_descriptor",
  "heredoc_content",
  "comment",
]);
/** Nodes made of the parts below them and nothing else. */
const CONTAINERS = new Set([
  "string",
  "concatenation",
  "simple_expansion",
  "heredoc_body",
  // Expressions of `[ ]` and `[[ ]]`, whose operators `judge-test-command.ts` judges.
  "binary_expression",
  "unary_expression",
  "parenthesized_expression",
]);

/**
 * Checks everything inside a word, positively: each node type below has a known meaning, and
 * anything else is refused by name. Command and process substitutions are handed to
 * `onSubstitution` (their commands run too); `${…}`, `$(( … ))` and array subscripts are
 * approved only in forms that cannot evaluate text as code.
 */
export function scanWord(node: BashNode, onSubstitution: (substitution: BashNode) => void): Verdict[] {
  const problems: Verdict[] = [];
  visit(node, onSubstitution, problems);
  return problems;
}

function visit(node: BashNode, onSubstitution: (substitution: BashNode) => void, problems: Verdict[]): void {
  if (node.isMissing || node.isError) {
    problems.push({ classification: "unparseable", reason: `has a syntax error near \`${node.text}\`` });
    return;
  }
  if (!node.isNamed || DATA_LEAVES.has(node.type)) {
    return;
  }
  switch (node.type) {
    case "command_substitution":
      if (node.children[0]?.type !== "$(") {
        problems.push({
          classification: "unparseable",
          reason: `uses the backquote substitution \`${node.text}\`, whose backslashes bash reads differently from the parser; write \`$( … )\``,
        });
        return;
      }
      onSubstitution(node);
      return;
    case "process_substitution":
      onSubstitution(node);
      return;
    case "arithmetic_expansion":
      problems.push(...judgeArithmetic(node));
      return;
    case "expansion":
      problems.push(...judgeExpansion(node));
      break;
    case "subscript":
      problems.push(...judgeSubscript(node));
      break;
    case "brace_expression":
      // `{1..3}`: numbers only, by the syntax check.
      return;
    default:
      if (!CONTAINERS.has(node.type)) {
        problems.push({
          classification: "unparseable",
          reason: `uses \`${node.text}\` (${node.type.replaceAll("_", " ")}) inside a word, which the policy does not model`,
        });
        return;
      }
  }
  for (const child of node.children) {
    visit(child, onSubstitution, problems);
  }
}

/**
 * An index of an indexed array is arithmetic: bash evaluates it, and a command substitution or a
 * variable whose value holds one runs. Only literal numbers, `@` and `*` are approved.
 */
export function judgeSubscript(node: BashNode): Verdict[] {
  const index = node.childForFieldName("index");
  if (
    index !== null &&
    /^([0-9]+|@|\*)$/.test(index.text) &&
    (index.type === "number" || index.type === "word")
  ) {
    return [];
  }
  const name = node.childForFieldName("name")?.text ?? "";
  return [
    {
      classification: "unparseable",
      reason: `evaluates the array subscript \`${index?.text ?? ""}\` of \`${name}\` as arithmetic, which runs commands`,
    },
  ];
}
