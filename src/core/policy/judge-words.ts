import { findWorstVerdict, type CommandPart, type Verdict } from "./command-classification.js";
import { findMatchingPrefix } from "./allow-prefix.js";
import { isHarmlessAssignmentName, isSensitiveAssignmentName } from "./assignment-names.js";
import { describeDangerousCommand } from "./dangerous-command.js";
import { findReadOnlyRule } from "./read-only-rules.js";
import type { ShellWord } from "./shell-word.js";
import { commandBaseName, unwrapCommand } from "./unwrap-command.js";

export interface JudgeWordsContext {
  readonly allowPrefixes: readonly (readonly string[])[];
  /** Functions defined anywhere in the command line being judged. */
  readonly functionNames: ReadonlySet<string>;
  /** Parses and judges a command string run by `bash -c` or `eval`, with variables set for it. */
  readonly judgeScript: (script: string, via: string, assignmentNames: readonly string[]) => CommandPart[];
}

export interface JudgeWordsOptions {
  /** Variables set for this command (`FOO=1 cmd`, `env FOO=1 cmd`, inherited by `bash -c`). */
  readonly assignmentNames: readonly string[];
  /** xargs adds arguments read at run time. */
  readonly appendsArguments: boolean;
}

export interface WordsJudgement {
  /** Undefined when the command only stands for the parts it runs (`bash -c '...'`). */
  readonly verdict?: Verdict;
  readonly nested: readonly CommandPart[];
}

const NOT_ALLOWED = "is not on the read-only allowlist or the allowed prefixes";

/** Judges one simple command from its words: danger first, then wrappers, the read-only allowlist, the prefixes. */
export function judgeWords(
  words: readonly ShellWord[],
  context: JudgeWordsContext,
  options: JudgeWordsOptions,
): WordsJudgement {
  const nameWord = words[0];
  if (nameWord === undefined) {
    return { verdict: { classification: "safe", reason: "runs nothing" }, nested: [] };
  }
  if (!nameWord.isLiteral) {
    return {
      verdict: {
        classification: "unparseable",
        reason: `computes its command name (\`${nameWord.source}\`) at run time`,
      },
      nested: [],
    };
  }
  const name = nameWord.value;
  const args = words.slice(1);
  const danger = describeDangerousCommand(name.slice(name.lastIndexOf("/") + 1), args);
  if (danger !== undefined) {
    return { verdict: { classification: "dangerous", reason: danger }, nested: [] };
  }
  if (context.functionNames.has(name)) {
    return {
      verdict: {
        classification: "not_allowlisted",
        reason: `calls the shell function \`${name}\` defined in this command line`,
      },
      nested: [],
    };
  }
  const baseName = commandBaseName(name);
  const unwrapped = unwrapCommand(baseName, args);
  if (unwrapped.kind !== "not_wrapper" && options.appendsArguments) {
    return {
      verdict: {
        classification: "not_allowlisted",
        reason: `gets arguments from its input through xargs, and \`${baseName}\` would run whatever command they name`,
      },
      nested: [],
    };
  }
  switch (unwrapped.kind) {
    case "verdict":
      return {
        verdict: applyAssignments(
          upgradeByPrefix(unwrapped, words, context, options),
          options.assignmentNames,
        ),
        nested: [],
      };
    case "script":
      return { nested: context.judgeScript(unwrapped.script, unwrapped.via, options.assignmentNames) };
    case "inner": {
      const own: Verdict =
        unwrapped.problem === undefined
          ? { classification: "safe", reason: "is read-only" }
          : { classification: "not_allowlisted", reason: unwrapped.problem };
      const verdicts: Verdict[] = [applyAssignments(own, options.assignmentNames)];
      const nested: CommandPart[] = [];
      for (const inner of unwrapped.commands) {
        const judgement = judgeWords(inner.words, context, {
          assignmentNames: [...options.assignmentNames, ...unwrapped.assignmentNames],
          appendsArguments: inner.appendsArguments,
        });
        nested.push(...judgement.nested);
        if (judgement.verdict !== undefined) {
          const innerText = inner.words.map((word) => word.source).join(" ");
          verdicts.push({
            classification: judgement.verdict.classification,
            reason: `runs \`${innerText}\` through \`${unwrapped.via}\`, which ${judgement.verdict.reason}`,
          });
        }
      }
      const worst = findWorstVerdict(verdicts) ?? own;
      return { verdict: upgradeByPrefix(worst, words, context, options), nested };
    }
    case "not_wrapper":
      return {
        verdict: applyAssignments(
          judgePlainCommand(baseName, words, context, options),
          options.assignmentNames,
        ),
        nested: [],
      };
  }
}

function judgePlainCommand(
  baseName: string,
  words: readonly ShellWord[],
  context: JudgeWordsContext,
  options: JudgeWordsOptions,
): Verdict {
  const rule = findReadOnlyRule(baseName);
  let problem = rule?.check(words.slice(1));
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

/** An operator's prefix allows a command the read-only rules do not; never one run with xargs input. */
function upgradeByPrefix(
  verdict: Verdict,
  words: readonly ShellWord[],
  context: JudgeWordsContext,
  options: JudgeWordsOptions,
): Verdict {
  if (verdict.classification !== "not_allowlisted" || options.appendsArguments) {
    return verdict;
  }
  const prefix = findMatchingPrefix(words, context.allowPrefixes);
  return prefix === undefined
    ? verdict
    : { classification: "allowlisted", reason: `matches the allowed prefix \`${prefix.join(" ")}\`` };
}

/**
 * Variables change what a command does: a read-only command keeps its status only with
 * formatting variables, an allow-listed one loses it with variables that change what runs.
 */
export function applyAssignments(verdict: Verdict, names: readonly string[]): Verdict {
  if (verdict.classification === "safe") {
    const name = names.find((candidate) => !isHarmlessAssignmentName(candidate));
    return name === undefined
      ? verdict
      : {
          classification: "not_allowlisted",
          reason: `runs with \`${name}\` set, which is not known to be harmless for a read-only command`,
        };
  }
  if (verdict.classification === "allowlisted") {
    const name = names.find(isSensitiveAssignmentName);
    return name === undefined
      ? verdict
      : {
          classification: "not_allowlisted",
          reason: `runs with \`${name}\` set, which changes which program runs or what it loads`,
        };
  }
  return verdict;
}
