import { describeComputedArgument, type ReadOnlyRule } from "./read-only-rule.js";
import type { ShellWord } from "./shell-word.js";

const EXEC_ACTIONS = new Set(["-exec", "-execdir", "-ok", "-okdir"]);
/** Actions that delete files or write to a named file. */
const WRITING_ACTIONS = new Set(["-delete", "-fprint", "-fprint0", "-fprintf", "-fls"]);

export interface FindCommandReading {
  /** The commands `-exec`, `-execdir`, `-ok` and `-okdir` would run, `{}` left in place. */
  readonly commands: readonly (readonly ShellWord[])[];
  /** Why find itself is not read-only (its own actions), if it is not. */
  readonly problem?: string;
}

/**
 * Splits a find command line into its own expression and the commands it runs. `{}` stands for
 * a found path, which always starts with a starting point, so it cannot become an option.
 */
export function readFindCommand(args: readonly ShellWord[]): FindCommandReading {
  const commands: ShellWord[][] = [];
  let problem: string | undefined;
  let index = 0;
  while (index < args.length) {
    const word = args[index] as ShellWord;
    if (word.mayBeOption) {
      problem ??= describeComputedArgument("find", word);
    } else if (WRITING_ACTIONS.has(word.value)) {
      problem ??= `uses \`find ${word.value}\`, which deletes files or writes to a file`;
    } else if (EXEC_ACTIONS.has(word.value)) {
      const end = args.findIndex(
        (candidate, position) =>
          position > index && candidate.isLiteral && (candidate.value === ";" || candidate.value === "+"),
      );
      if (end === -1) {
        problem ??= `has \`${word.value}\` without a closing \`;\` or \`+\``;
        break;
      }
      commands.push(args.slice(index + 1, end));
      index = end;
    }
    index += 1;
  }
  return problem === undefined ? { commands } : { commands, problem };
}

/** find's own expression; the commands it runs are judged separately as parts. */
export const findCommandRule: ReadOnlyRule = {
  acceptsAnyArguments: false,
  check: (args) => readFindCommand(args).problem,
};
