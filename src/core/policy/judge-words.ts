import path from "node:path";
import { findWorstVerdict, type CommandPart, type Verdict } from "./command-classification.js";
import { changeDirectory, type CommandLocation } from "./command-location.js";
import { describeDangerousCommand } from "./dangerous-command.js";
import { describeWriteTargets } from "./describe-write-targets.js";
import { judgeEvaluatingBuiltin } from "./judge-evaluating-builtin.js";
import type { ShellWord } from "./shell-word.js";
import { applyAssignments, judgePlainCommand, upgradeByPrefix } from "./judge-plain-command.js";
import { commandBaseName, unwrapCommand } from "./unwrap-command.js";
import type { ShellDialect } from "./unwrap-shell.js";

export interface JudgeWordsContext {
  readonly allowPrefixes: readonly (readonly string[])[];
  /** Functions defined anywhere in the command line being judged. */
  readonly functionNames: ReadonlySet<string>;
  /** Parses and judges a command string run by `bash -c`, `eval` or `trap`. */
  readonly judgeScript: (script: NestedScript) => CommandPart[];
  /** The command line changes its folder somewhere (`cd`, `pushd`, `popd`). */
  readonly scriptChangesDirectory: boolean;
}

export interface NestedScript {
  readonly script: string;
  readonly via: string;
  /** Variables set for the whole script by whoever runs it (`PATH=x bash -c '...'`). */
  readonly assignmentNames: readonly string[];
  readonly dialect: ShellDialect;
  readonly location: CommandLocation;
}

export interface JudgeWordsOptions {
  /** Variables set for this command (`FOO=1 cmd`, `env FOO=1 cmd`, inherited by `bash -c`). */
  readonly assignmentNames: readonly string[];
  /** xargs adds arguments read at run time. */
  readonly appendsArguments: boolean;
  /** A wrapper changed the environment otherwise (`env -i`, `env -u NAME`). */
  readonly environmentChanged?: boolean;
  readonly location: CommandLocation;
}

export interface WordsJudgement {
  /** Undefined when the command only stands for the parts it runs (`bash -c '...'`). */
  readonly verdict?: Verdict;
  readonly nested: readonly CommandPart[];
  /** A `cd` (also through `builtin` or `command`): where the shell is afterwards. */
  readonly directoryChange?: CommandLocation["cwd"];
}

const DIRECTORY_CHANGERS = new Set(["cd", "pushd", "popd"]);
/** Text that may change the shell's folder when run (a conservative look at code in a string). */
export const DIRECTORY_WORD = /\b(cd|pushd|popd)\b/;
const UNKNOWN_AFTER_CALL: CommandLocation["cwd"] = {
  kind: "unknown",
  reason: "a function of this command line, which may change the folder, ran before it",
};

/**
 * Judges one simple command from its words: danger and write targets first, then builtins that
 * evaluate code, wrappers, the read-only allowlist and the prefixes.
 */
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
  const baseName = commandBaseName(name);
  const danger = describeDangerousCommand(name.slice(name.lastIndexOf("/") + 1), args);
  if (danger !== undefined) {
    return { verdict: { classification: "dangerous", reason: danger }, nested: [] };
  }
  const targets = describeWriteTargets(baseName, args, options.location, options.appendsArguments);
  if (targets?.classification === "dangerous") {
    return { verdict: targets, nested: [] };
  }
  const judgement = judgeProgram(name, baseName, words, context, options);
  const verdict = findWorstVerdict([judgement.verdict, targets]);
  return verdict === undefined ? judgement : { ...judgement, verdict };
}

function judgeProgram(
  name: string,
  baseName: string,
  words: readonly ShellWord[],
  context: JudgeWordsContext,
  options: JudgeWordsOptions,
): WordsJudgement {
  const args = words.slice(1);
  if (context.functionNames.has(name)) {
    return {
      verdict: {
        classification: "not_allowlisted",
        reason: `calls the shell function \`${name}\` defined in this command line`,
      },
      nested: [],
      ...(context.scriptChangesDirectory ? { directoryChange: UNKNOWN_AFTER_CALL } : {}),
    };
  }
  const evaluating = judgeEvaluatingBuiltin(baseName, args);
  if (evaluating !== undefined) {
    // trap and alias code runs later, perhaps after a `cd`; eval and source run now, in this shell.
    const runsLater = baseName === "trap" || baseName === "alias";
    const nested = evaluating.scripts.flatMap((script) =>
      context.judgeScript({
        script: script.text,
        via: script.via,
        assignmentNames: options.assignmentNames,
        dialect: "bash",
        location:
          runsLater && context.scriptChangesDirectory
            ? {
                ...options.location,
                cwd: { kind: "unknown", reason: `\`${baseName}\` code runs after a \`cd\`` },
              }
            : options.location,
      }),
    );
    const changesDirectory =
      baseName === "source" ||
      baseName === "." ||
      evaluating.scripts.some((script) => !runsLater && DIRECTORY_WORD.test(script.text));
    return {
      verdict: evaluating.verdict,
      nested,
      ...(changesDirectory
        ? { directoryChange: { kind: "unknown", reason: `\`${baseName}\` may have changed the folder` } }
        : {}),
    };
  }
  const unwrapped = unwrapCommand(baseName, args);
  if (unwrapped.kind !== "not_wrapper" && options.appendsArguments) {
    // `xargs sh -c`, `xargs env`, `xargs find …`: what runs comes from the input, unseen.
    return {
      verdict: {
        classification: "unparseable",
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
      return {
        nested: context.judgeScript({
          script: unwrapped.script,
          via: unwrapped.via,
          assignmentNames: options.assignmentNames,
          dialect: unwrapped.dialect,
          location: options.location,
        }),
      };
    case "inner": {
      const own: Verdict =
        unwrapped.problem === undefined
          ? { classification: "safe", reason: "is read-only" }
          : { classification: "not_allowlisted", reason: unwrapped.problem };
      const verdicts: Verdict[] = [applyAssignments(own, options.assignmentNames)];
      const nested: CommandPart[] = [];
      let directoryChange: CommandLocation["cwd"] | undefined;
      for (const inner of unwrapped.commands) {
        // `{}` stands for a path below find's starting points, which are relative to find's folder.
        const innerWords =
          inner.changesDirectory === undefined
            ? inner.words
            : anchorPlaceholders(inner.words, options.location);
        const judgement = judgeWords(innerWords, context, {
          assignmentNames: [...options.assignmentNames, ...unwrapped.assignmentNames],
          appendsArguments: inner.appendsArguments,
          environmentChanged: options.environmentChanged === true || unwrapped.changesEnvironment === true,
          location: innerLocation(options.location, inner.changesDirectory),
        });
        nested.push(...judgement.nested);
        directoryChange ??=
          unwrapped.via === "builtin" || unwrapped.via === "command" ? judgement.directoryChange : undefined;
        if (judgement.verdict !== undefined) {
          const innerText = inner.words.map((word) => word.source).join(" ");
          verdicts.push({
            classification: judgement.verdict.classification,
            reason: `runs \`${innerText}\` through \`${unwrapped.via}\`, which ${judgement.verdict.reason}`,
          });
        }
      }
      const worst = findWorstVerdict(verdicts) ?? own;
      return {
        verdict: upgradeByPrefix(worst, words, context, options),
        nested,
        ...(directoryChange === undefined ? {} : { directoryChange }),
      };
    }
    case "not_wrapper":
      return {
        verdict: applyAssignments(
          judgePlainCommand(baseName, words, context, options),
          options.assignmentNames,
        ),
        nested: [],
        ...(DIRECTORY_CHANGERS.has(baseName)
          ? { directoryChange: directoryAfter(baseName, args, options.location) }
          : {}),
      };
  }
}

function anchorPlaceholders(words: readonly ShellWord[], location: CommandLocation): readonly ShellWord[] {
  return words.map((word) =>
    word.underPaths === undefined
      ? word
      : {
          ...word,
          underPaths: word.underPaths.flatMap((root) =>
            root.isLiteral && !root.hasTilde && !path.isAbsolute(root.value) && location.cwd.kind === "known"
              ? location.cwd.paths.map((folder) => ({ ...root, value: path.resolve(folder, root.value) }))
              : [root],
          ),
        },
  );
}

function innerLocation(
  location: CommandLocation,
  change: { readonly to: ShellWord } | { readonly to: "unknown"; readonly reason: string } | undefined,
): CommandLocation {
  if (change === undefined) {
    return location;
  }
  return change.to === "unknown"
    ? { ...location, cwd: { kind: "unknown", reason: change.reason } }
    : { ...location, cwd: changeDirectory(location, change.to) };
}

function directoryAfter(
  name: string,
  args: readonly ShellWord[],
  location: CommandLocation,
): CommandLocation["cwd"] {
  if (name !== "cd") {
    return { kind: "unknown", reason: `\`${name}\` changed the folder` };
  }
  const operands = args.filter((word) => !(word.isLiteral && /^-[LPe@]+$/.test(word.value)));
  const target = operands[0]?.isLiteral === true && operands[0].value === "--" ? operands[1] : operands[0];
  return changeDirectory(location, target);
}
