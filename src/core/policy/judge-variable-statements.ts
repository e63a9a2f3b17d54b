import { findWorstVerdict, type Verdict } from "./command-classification.js";
import { isAssignableName, isCodeVariableName, isHarmlessAssignmentName } from "./assignment-names.js";
import type { BashNode } from "./load-bash-parser.js";
import { describeSubscript } from "./describe-subscript.js";
import { judgeSubscript } from "./scan-word.js";
import { evaluateWord, type EvaluateWordResult } from "./shell-word.js";

/** Scans a node's words for substitutions and unreadable constructs (the walker's scanner). */
export type ScanChildren = (node: BashNode) => Verdict[];

const SAFE_ASSIGNMENT: Verdict = { classification: "safe", reason: "only sets shell variables" };
const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Option letters each declaration keyword is approved with. Left out: `-a` and `-A` (arrays,
 * whose subscripts are arithmetic), `-i` (every later assignment is evaluated as arithmetic),
 * `-n` (a name reference: the value names another variable, subscript included), `-t` (traces
 * functions with DEBUG and RETURN traps), `-I`, and `export -f` (exports functions).
 */
const ALLOWED_LETTERS: Readonly<Record<string, RegExp>> = {
  declare: /^(-[prxgluFf]+|\+[xlu]+)$/,
  typeset: /^(-[prxgluFf]+|\+[xlu]+)$/,
  local: /^(-[prxlu]+|\+[xlu]+)$/,
  readonly: /^-p$/,
  export: /^-[pn]+$/,
};

/**
 * `export`, `declare`, `local`, `readonly` and `typeset`. bash reads each argument, after its
 * expansion, as a name or an assignment, and evaluates an array subscript in it as arithmetic
 * (`declare 'a[$(cmd)]=1'` runs `cmd`), so only plain names and plain assignments are approved.
 */
export function judgeDeclarationCommand(node: BashNode, scanChildren: ScanChildren): Verdict {
  const keyword = node.children[0]?.type ?? "";
  const problems: Verdict[] = [];
  let exports = keyword === "export";
  const names: string[] = [];
  for (const child of node.namedChildren) {
    if (child.type === "variable_assignment") {
      const name = child.childForFieldName("name");
      if (name?.type !== "variable_name") {
        problems.push(
          ...(name?.type === "subscript"
            ? judgeSubscriptAssignment(keyword, name)
            : [unreadable(keyword, child)]),
        );
        continue;
      }
      names.push(name.text);
      problems.push(...scanChildren(child));
      continue;
    }
    const word = readNameOrWord(child);
    if (!word.success || !word.value.isLiteral) {
      problems.push({
        classification: "unparseable",
        reason: `passes \`${child.text}\` to \`${keyword}\`; it is computed at run time, and bash would read it as a name or an assignment and evaluate any array subscript in it as arithmetic, which runs commands`,
      });
      continue;
    }
    const value = word.value.value;
    if (/^[-+][A-Za-z]+$/.test(value) && child.type !== "variable_name") {
      if (!(ALLOWED_LETTERS[keyword] ?? /^$/).test(value)) {
        problems.push({
          classification: /[ain]/.test(value) ? "unparseable" : "not_allowlisted",
          reason: `uses \`${keyword} ${value}\`, which makes arrays, integer (arithmetic) variables, name references or exported functions`,
        });
      }
      exports ||= /^-[^-]*x/.test(value);
      continue;
    }
    if (PLAIN_NAME.test(value)) {
      names.push(value);
      continue;
    }
    problems.push(
      value.includes("[")
        ? {
            classification: "unparseable",
            reason: describeSubscript(`${keyword} ${child.text}`, word.value),
          }
        : unreadable(keyword, child),
    );
  }
  problems.push(...judgeNames(names, exports ? "exports" : "sets"));
  return findWorstVerdict(problems) ?? SAFE_ASSIGNMENT;
}

/** `unset NAME…`: a quoted `a[…]` has its subscript evaluated (`unset 'a[$(cmd)]'` runs `cmd`). */
export function judgeUnsetCommand(node: BashNode): Verdict {
  const problems: Verdict[] = [];
  const names: string[] = [];
  let isFunctions = false;
  for (const child of node.namedChildren) {
    const word = readNameOrWord(child);
    if (!word.success || !word.value.isLiteral) {
      problems.push({
        classification: "unparseable",
        reason: `unsets \`${child.text}\`, which is computed at run time; bash would evaluate an array subscript in it as arithmetic, which runs commands`,
      });
      continue;
    }
    const value = word.value.value;
    if (/^-[fvn]+$/.test(value)) {
      isFunctions ||= value.includes("f");
    } else if (PLAIN_NAME.test(value)) {
      names.push(value);
    } else {
      problems.push({
        classification: value.includes("[") ? "unparseable" : "not_allowlisted",
        reason: value.includes("[")
          ? describeSubscript(`unset ${child.text}`, word.value)
          : `unsets \`${value}\`, which is not a plain name`,
      });
    }
  }
  if (!isFunctions) {
    problems.push(...judgeNames(names, "unsets"));
  }
  return findWorstVerdict(problems) ?? { classification: "safe", reason: "only unsets shell variables" };
}

/** `NAME=value` on its own, or several of them. */
export function judgeAssignmentStatement(node: BashNode, scanChildren: ScanChildren): Verdict {
  const assignments = node.type === "variable_assignments" ? node.namedChildren : [node];
  const problems: Verdict[] = [];
  const names: string[] = [];
  for (const assignment of assignments) {
    const name = assignment.childForFieldName("name");
    if (name?.type === "subscript") {
      problems.push(...judgeSubscriptAssignment("", name));
      names.push(name.childForFieldName("name")?.text ?? "");
    } else {
      names.push(name?.text ?? "");
    }
    problems.push(...scanChildren(assignment));
  }
  return findWorstVerdict([...judgeNames(names, "sets"), ...problems]) ?? SAFE_ASSIGNMENT;
}

/** Names of variables set for a command (`NAME=value cmd`) or by a statement. */
export function judgeAssignmentNames(names: readonly string[]): Verdict {
  return findWorstVerdict(judgeNames(names, "sets")) ?? SAFE_ASSIGNMENT;
}

function judgeNames(names: readonly string[], verb: "sets" | "exports" | "unsets"): Verdict[] {
  const code = names.find(isCodeVariableName);
  if (code !== undefined && verb !== "unsets") {
    return [
      {
        classification: "unparseable",
        reason: `${verb} \`${code}\`, whose value bash expands and runs as code later`,
      },
    ];
  }
  const refused = names.find((name) =>
    verb === "exports" ? !isHarmlessAssignmentName(name) : !isAssignableName(name),
  );
  return refused === undefined
    ? []
    : [
        {
          classification: "not_allowlisted",
          reason:
            verb === "exports"
              ? `exports \`${refused}\` to later commands, and only formatting variables are known to be harmless to them`
              : `${verb} \`${refused}\`, a variable that changes how bash or later commands behave (which programs run, what they load, how words split)`,
        },
      ];
}

function judgeSubscriptAssignment(keyword: string, subscript: BashNode): Verdict[] {
  const problems = judgeSubscript(subscript);
  return problems.map((problem) => ({
    ...problem,
    reason:
      keyword === ""
        ? `\`${subscript.text}=…\` ${problem.reason}`
        : `\`${keyword} ${subscript.text}=…\` ${problem.reason}`,
  }));
}

function unreadable(keyword: string, child: BashNode): Verdict {
  return {
    classification: "unparseable",
    reason: `passes \`${child.text}\` to \`${keyword}\`, which the policy cannot read as a plain name or assignment`,
  };
}

/** The parser gives bare names in declarations as `variable_name` nodes; they are literal words. */
function readNameOrWord(node: BashNode): EvaluateWordResult {
  return node.type === "variable_name"
    ? {
        success: true,
        value: {
          source: node.text,
          value: node.text,
          isLiteral: true,
          hasGlob: false,
          hasTilde: false,
          mayBeOption: false,
          mayBeSeveralWords: false,
        },
      }
    : evaluateWord(node);
}
