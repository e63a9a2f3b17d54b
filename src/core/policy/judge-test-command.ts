import { findWorstVerdict, type Verdict } from "./command-classification.js";
import type { BashNode } from "./load-bash-parser.js";
import { describeSubscript } from "./describe-subscript.js";
import type { ScanChildren } from "./judge-variable-statements.js";
import { evaluateWord } from "./shell-word.js";

const ARITHMETIC_OPERATORS = new Set(["-eq", "-ne", "-lt", "-le", "-gt", "-ge"]);
const NAME_OPERATORS = new Set(["-v", "-R"]);
const COMPARISONS = new Set(["==", "=", "!=", "<", ">", "=~", "-nt", "-ot", "-ef", ...ARITHMETIC_OPERATORS]);
const WORD_TYPES = new Set([
  "word",
  "string",
  "raw_string",
  "ansi_c_string",
  "concatenation",
  "simple_expansion",
  "expansion",
  "command_substitution",
  "number",
]);
/** Operands that are always a decimal number: `$#`, `$?`, `$$`, `$!`. */
const NUMERIC_SPECIAL = /^\$[#?$!]$/;

function refuse(_node: BashNode, why: string): Verdict {
  return { classification: "unparseable", reason: why };
}

/**
 * `[[ … ]]`. Its words are expanded without splitting; the dangers are `-eq` and its kin, which
 * evaluate both operands as arithmetic (`[[ $x -eq 1 ]]` with `x='a[$(cmd)]'` runs `cmd`), and
 * `-v`/`-R`, which evaluate a subscript in the name. The tree must have the shape bash gives the
 * expression, and every arithmetic or name operator in the text must be one the tree holds as an
 * operator, or the parser read the expression differently and it is refused.
 */
export function judgeDoubleBracket(node: BashNode, scanChildren: ScanChildren): Verdict {
  const problems: Verdict[] = scanChildren(node);
  const expressions = node.namedChildren;
  if (expressions.length !== 1) {
    problems.push(refuse(node, "is a test the policy cannot read as one expression"));
  }
  let operatorCount = 0;
  const visit = (expression: BashNode): void => {
    switch (expression.type) {
      case "parenthesized_expression":
        expression.namedChildren.forEach(visit);
        return;
      case "unary_expression": {
        const operator = expression.children[0];
        const operands = expression.namedChildren.filter((child) => child !== operator);
        if (operator?.type === "!") {
          operands.forEach(visit);
          return;
        }
        if (operator?.type !== "test_operator" || operands.length !== 1) {
          problems.push(refuse(expression, `has \`${expression.text}\`, a test the policy cannot read`));
          return;
        }
        operatorCount += ARITHMETIC_OPERATORS.has(operator.text) || NAME_OPERATORS.has(operator.text) ? 1 : 0;
        const operand = operands[0] as BashNode;
        if (NAME_OPERATORS.has(operator.text) && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(operand.text)) {
          const name = evaluateWord(operand);
          problems.push(
            refuse(
              expression,
              describeSubscript(
                expression.text,
                name.success ? name.value : { source: operand.text, value: operand.text, isLiteral: false },
              ),
            ),
          );
        }
        requireWord(operand);
        return;
      }
      case "binary_expression": {
        const operator = expression.childForFieldName("operator");
        const text = operator?.text ?? "";
        if (text === "&&" || text === "||") {
          expression.namedChildren.filter((child) => child !== operator).forEach(visit);
          return;
        }
        if (!COMPARISONS.has(text)) {
          problems.push(refuse(expression, `uses \`${text}\`, which the policy does not model in a test`));
          return;
        }
        const operands = [expression.childForFieldName("left"), ...expression.childrenForFieldName("right")];
        if (ARITHMETIC_OPERATORS.has(text)) {
          operatorCount += 1;
          const computed = operands.find(
            (operand) =>
              operand !== null && !/^-?[0-9]+$/.test(operand.text) && !NUMERIC_SPECIAL.test(operand.text),
          );
          if (computed !== undefined && computed !== null) {
            problems.push(
              refuse(
                expression,
                `compares \`${computed.text}\` arithmetically (\`${expression.text}\`): bash evaluates the operand as arithmetic, where a variable value such as \`a[$(cmd)]\` runs the command`,
              ),
            );
          }
        }
        operands.forEach((operand) => {
          if (operand !== null && !["regex", "extglob_pattern"].includes(operand.type)) {
            requireWord(operand);
          }
        });
        return;
      }
      default:
        requireWord(expression);
    }
  };
  const requireWord = (operand: BashNode): void => {
    if (!WORD_TYPES.has(operand.type)) {
      problems.push(
        refuse(
          operand,
          `has \`${operand.text}\` where bash expects a word, so the parser grouped the expression differently from bash`,
        ),
      );
    }
  };
  expressions.forEach(visit);
  const textCount = (node.text.match(/(^|\s)-(eq|ne|lt|le|gt|ge|v|R)(?=\s|$)/g) ?? []).length;
  if (textCount !== operatorCount) {
    problems.push(
      refuse(
        node,
        "has `-eq`, `-v` or a similar operator where the parser did not read one, so it read the test differently from bash",
      ),
    );
  }
  return findWorstVerdict(problems) ?? { classification: "safe", reason: "only tests a condition" };
}
