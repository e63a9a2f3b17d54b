import type { CommandLocation } from "./command-location.js";
import { judgeScript, type ScriptContext } from "./judge-script.js";
import { judgeWords, type WordsJudgement } from "./judge-words.js";
import type { ShellWord } from "./shell-word.js";

/**
 * One simple command's words, judged in the script's context: its prefixes, the functions the
 * line defines, whether the folder may change, the variables set for it (the script's own and
 * those its runner set), and where it runs. A command string it runs (`bash -c`, `eval`) is
 * parsed and judged one level deeper.
 */
export function judgeCommandWords(
  words: readonly ShellWord[],
  options: {
    readonly context: ScriptContext;
    readonly functionNames: ReadonlySet<string>;
    readonly changesDirectory: boolean;
    readonly assignmentNames: readonly string[];
    readonly location: CommandLocation;
  },
): WordsJudgement {
  const { context } = options;
  return judgeWords(
    words,
    {
      allowPrefixes: context.allowPrefixes,
      functionNames: options.functionNames,
      scriptChangesDirectory: options.changesDirectory,
      judgeScript: (nestedScript) =>
        judgeScript(nestedScript.script, {
          ...context,
          depth: context.depth + 1,
          via: nestedScript.via,
          inheritedAssignments: nestedScript.assignmentNames,
          dialect: nestedScript.dialect,
          location: nestedScript.location,
        }),
    },
    {
      assignmentNames: [...context.inheritedAssignments, ...options.assignmentNames],
      appendsArguments: false,
      location: options.location,
    },
  );
}
