import type { Verdict } from "./command-classification.js";
import { findMatchingPrefix } from "./allow-prefix.js";
import { isHarmlessAssignmentName } from "./assignment-names.js";
import { isAtWorkspaceRoot } from "./command-location.js";
import type { JudgeWordsContext, JudgeWordsOptions } from "./judge-words.js";
import { findReadOnlyRule } from "./read-only-rules.js";
import type { ShellWord } from "./shell-word.js";

const NOT_ALLOWED = "is not on the read-only allowlist or the allowed prefixes";

/** A command that wraps nothing: read-only by its rule, or allowed by an operator's prefix, or neither. */
export function judgePlainCommand(
  baseName: string,
  words: readonly ShellWord[],
  context: JudgeWordsContext,
  options: JudgeWordsOptions,
): Verdict {
  const rule = findReadOnlyRule(baseName);
  let problem = rule?.check(words.slice(1), { isAtWorkspaceRoot: isAtWorkspaceRoot(options.location) });
  if (rule !== undefined && problem === undefined) {
    if (!options.appendsArguments || rule.acceptsAnyArguments) {
      return { classification: "safe", reason: "is read-only" };
    }
    problem = `gets extra arguments from its input through xargs, which could turn on an option of \`${baseName}\` that writes or runs a program`;
  }
  return upgradeByPrefix(
    { classification: "not_allowlisted", reason: problem ?? NOT_ALLOWED },
    words,
    context,
    options,
  );
}

/**
 * An operator's prefix allows a command the read-only rules do not, when the command's own
 * words begin with it: never with variables set before it (`X=1 npm test`, `env X=1 npm test`,
 * `env -i npm test`), whose effect on the program the operator did not approve, and never with
 * arguments added by xargs.
 */
export function upgradeByPrefix(
  verdict: Verdict,
  words: readonly ShellWord[],
  context: JudgeWordsContext,
  options: JudgeWordsOptions,
): Verdict {
  if (verdict.classification !== "not_allowlisted" || options.appendsArguments) {
    return verdict;
  }
  const prefix = findMatchingPrefix(words, context.allowPrefixes);
  if (prefix === undefined) {
    return verdict;
  }
  const variable = options.assignmentNames[0];
  if (variable !== undefined || options.environmentChanged === true) {
    return {
      classification: "not_allowlisted",
      reason: `matches the allowed prefix \`${prefix.join(" ")}\` but runs with ${variable === undefined ? "a changed environment" : `\`${variable}\` set`}, and a prefix allows the command only as it is written`,
    };
  }
  return { classification: "allowlisted", reason: `matches the allowed prefix \`${prefix.join(" ")}\`` };
}

/** A read-only command keeps its status only with formatting variables (`LC_ALL=C sort`). */
export function applyAssignments(verdict: Verdict, names: readonly string[]): Verdict {
  if (verdict.classification !== "safe") {
    return verdict;
  }
  const name = names.find((candidate) => !isHarmlessAssignmentName(candidate));
  return name === undefined
    ? verdict
    : {
        classification: "not_allowlisted",
        reason: `runs with \`${name}\` set, which is not known to be harmless for a read-only command`,
      };
}
