import type { Verdict } from "./command-classification.js";
import { judgeAssignmentNames } from "./judge-variable-statements.js";
import type { BashNode } from "./load-bash-parser.js";
import { scanWord } from "./scan-word.js";

/**
 * A `for` loop's or a `case`'s own words: the variable it assigns (judged like an assignment),
 * the words it reads (scanned for substitutions), and the statements of its body, in order, for
 * the walker.
 */
export function readLoopOrCaseHeader(
  node: BashNode,
  onSubstitution: (substitution: BashNode) => void,
): { readonly problems: readonly Verdict[]; readonly statements: readonly BashNode[] } {
  const problems: Verdict[] = [];
  const statements: BashNode[] = [];
  node.children.forEach((child, index) => {
    if (!child.isNamed) return;
    const field = node.fieldNameForChild(index);
    if (field === "variable") {
      const verdict = judgeAssignmentNames([child.text]);
      if (verdict.classification !== "safe") problems.push(verdict);
    } else if (field === "value") {
      problems.push(...scanWord(child, onSubstitution));
    } else {
      statements.push(child);
    }
  });
  return { problems, statements };
}
