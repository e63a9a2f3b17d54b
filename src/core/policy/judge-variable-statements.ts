import { findWorstVerdict, type Verdict } from "./command-classification.js";
import { isSensitiveAssignmentName } from "./assignment-names.js";
import type { BashNode } from "./load-bash-parser.js";

/** Scans a node's words for substitutions and unreadable constructs (the walker's scanner). */
export type ScanChildren = (node: BashNode) => Verdict[];

const ARITHMETIC_TEST_OPERATORS = new Set(["-eq", "-ne", "-lt", "-le", "-gt", "-ge"]);
const SAFE_ASSIGNMENT: Verdict = { classification: "safe", reason: "only sets shell variables" };

/** `[ ... ]` and `[[ ... ]]`; in `[[`, `-eq` and friends evaluate their operands as arithmetic. */
export function judgeTestCommand(node: BashNode, scanChildren: ScanChildren): Verdict {
  const problems = scanChildren(node);
  if (node.child(0)?.type === "[[") {
    for (const expression of node.descendantsOfType("binary_expression")) {
      const operator = expression.childForFieldName("operator")?.text ?? "";
      const operands = [expression.childForFieldName("left"), expression.childForFieldName("right")];
      if (
        ARITHMETIC_TEST_OPERATORS.has(operator) &&
        operands.some((operand) => operand !== null && !/^-?\d+$/.test(operand.text))
      ) {
        problems.push({
          classification: "unparseable",
          reason: `compares \`${expression.text}\` arithmetically, which evaluates variable values as code`,
        });
      }
    }
  }
  return findWorstVerdict(problems) ?? { classification: "safe", reason: "only tests a condition" };
}

/** `export`, `declare`, `local`, `readonly`, `typeset` and `unset`. */
export function judgeDeclarationCommand(node: BashNode, scanChildren: ScanChildren): Verdict {
  const problems: Verdict[] = [];
  const assignedNames: string[] = [];
  const bareNames: string[] = [];
  for (const child of node.namedChildren) {
    if (child.type === "variable_assignment") {
      assignedNames.push(child.childForFieldName("name")?.text ?? "");
      problems.push(...scanChildren(child));
    } else if (child.type === "word" && /^[-+][A-Za-z]+$/.test(child.text)) {
      if (/[ni]/.test(child.text)) {
        problems.push({
          classification: "not_allowlisted",
          reason: `uses \`${child.text}\`, which turns assignments into references or arithmetic`,
        });
      }
    } else if (
      (child.type === "variable_name" || child.type === "word") &&
      /^[A-Za-z_][A-Za-z0-9_]*$/.test(child.text)
    ) {
      bareNames.push(child.text);
    } else {
      problems.push({
        classification: "unparseable",
        reason: `declares \`${child.text}\`, which is computed at run time`,
      });
    }
  }
  const isUnset = node.type === "unset_command";
  // `export PATH` keeps the value; `PATH=...` or `unset PATH` changes what later commands find.
  const sensitive = (isUnset ? bareNames : assignedNames).find(isSensitiveAssignmentName);
  if (sensitive !== undefined) {
    problems.push({
      classification: "not_allowlisted",
      reason: `${isUnset ? "unsets" : "sets"} \`${sensitive}\`, which changes which programs later commands run or what they load`,
    });
  }
  return findWorstVerdict(problems) ?? SAFE_ASSIGNMENT;
}

/** `NAME=value` on its own, or several of them. */
export function judgeAssignmentStatement(node: BashNode, scanChildren: ScanChildren): Verdict {
  const assignments = node.type === "variable_assignments" ? node.namedChildren : [node];
  const problems: Verdict[] = [];
  const names: string[] = [];
  for (const assignment of assignments) {
    names.push(assignment.childForFieldName("name")?.text ?? "");
    problems.push(...scanChildren(assignment));
  }
  return findWorstVerdict([judgeAssignmentNames(names), ...problems]) ?? SAFE_ASSIGNMENT;
}

export function judgeAssignmentNames(names: readonly string[]): Verdict {
  const sensitive = names.find(isSensitiveAssignmentName);
  return sensitive === undefined
    ? SAFE_ASSIGNMENT
    : {
        classification: "not_allowlisted",
        reason: `sets \`${sensitive}\`, which changes which programs later commands run or what they load`,
      };
}
