import { describeComputedArgument, type ReadOnlyRule } from "./read-only-rule.js";
import type { ShellWord } from "./shell-word.js";

const EXEC_ACTIONS = new Set(["-exec", "-execdir", "-ok", "-okdir"]);
/** Actions that write to a named file (GNU findutils 4.9 has no others besides the exec family). */
const WRITING_ACTIONS = new Set(["-fprint", "-fprint0", "-fprintf", "-fls"]);
/** Options before the starting points; `-D` and `-O` may take their value as the next word. */
const LEADING_OPTIONS = /^-([HLP]+|D|O[0-9]*)$/;

/** One command `-exec` and its kin run. */
export interface FindExec {
  /** Its words, each `{}` replaced by a word standing for a found path. */
  readonly words: readonly ShellWord[];
  /** `-execdir` and `-okdir` run it in the folder of the found file. */
  readonly inFoundFolder: boolean;
}

export interface FindCommandReading {
  readonly commands: readonly FindExec[];
  /** Where find starts; everything it finds, deletes or hands to a command is below one of them. */
  readonly startingPoints: readonly ShellWord[];
  readonly deletes: boolean;
  /** Why find itself is not read-only (its own actions), if it is not. */
  readonly problem?: string;
}

/**
 * Splits a find command line into its own expression and the commands it runs. A `+` ends an
 * `-exec` only right after `{}` (otherwise GNU find passes it on and reads to the next `;`), and
 * `{}` anywhere in a word is replaced by the found path, so such a word is computed.
 */
export function readFindCommand(args: readonly ShellWord[]): FindCommandReading {
  const commands: FindExec[] = [];
  let problem: string | undefined;
  let deletes = false;
  let index = 0;
  while (index < args.length && LEADING_OPTIONS.test((args[index] as ShellWord).value)) {
    index += /^-(D|O)$/.test((args[index] as ShellWord).value) ? 2 : 1;
  }
  const startingPoints: ShellWord[] = [];
  while (index < args.length && !isExpressionStart(args[index] as ShellWord)) {
    startingPoints.push(args[index] as ShellWord);
    index += 1;
  }
  // `-files0-from FILE` reads further starting points from a file.
  const roots = args.some((word) => word.value === "-files0-from")
    ? [...startingPoints, unknownPath()]
    : startingPoints.length === 0
      ? [dot()]
      : startingPoints;
  while (index < args.length) {
    const word = args[index] as ShellWord;
    if (word.mayBeOption) {
      problem ??= describeComputedArgument("find", word);
    } else if (word.value === "-delete") {
      deletes = true;
      problem ??= "uses `find -delete`, which deletes files";
    } else if (WRITING_ACTIONS.has(word.value)) {
      problem ??= `uses \`find ${word.value}\`, which writes to a file`;
    } else if (EXEC_ACTIONS.has(word.value)) {
      const end = findExecEnd(args, index);
      if (end === undefined) {
        problem ??= `has \`${word.value}\` without a closing \`;\` or \`{} +\``;
        break;
      }
      commands.push({
        words: args.slice(index + 1, end).map((part) => replacePlaceholder(part, roots)),
        inFoundFolder: word.value === "-execdir" || word.value === "-okdir",
      });
      index = end;
    }
    index += 1;
  }
  for (const root of startingPoints) {
    if (root.mayBeOption) {
      problem ??= describeComputedArgument("find", root);
    }
  }
  return {
    commands,
    startingPoints: roots,
    deletes,
    ...(problem === undefined ? {} : { problem }),
  };
}

function isExpressionStart(word: ShellWord): boolean {
  return word.mayBeOption || /^[-(!,]/.test(word.value) || word.value === ")";
}

function findExecEnd(args: readonly ShellWord[], start: number): number | undefined {
  for (let position = start + 1; position < args.length; position += 1) {
    const candidate = args[position] as ShellWord;
    if (!candidate.isLiteral) {
      continue;
    }
    if (candidate.value === ";") {
      return position;
    }
    const previous = args[position - 1] as ShellWord;
    if (candidate.value === "+" && position > start + 1 && previous.isLiteral && previous.value === "{}") {
      return position;
    }
  }
  return undefined;
}

function replacePlaceholder(word: ShellWord, roots: readonly ShellWord[]): ShellWord {
  if (!word.value.includes("{}")) {
    return word;
  }
  const isWhole = word.isLiteral && word.value === "{}";
  return {
    ...word,
    isLiteral: false,
    hasGlob: false,
    // A found path starts with its starting point, which is not an option.
    mayBeOption: !isWhole && word.value.startsWith("{}") ? false : word.mayBeOption,
    mayBeSeveralWords: false,
    ...(isWhole ? { underPaths: roots } : {}),
  };
}

function dot(): ShellWord {
  return {
    source: ".",
    value: ".",
    isLiteral: true,
    hasGlob: false,
    hasTilde: false,
    mayBeOption: false,
    mayBeSeveralWords: false,
  };
}

function unknownPath(): ShellWord {
  return { ...dot(), source: "-files0-from", value: "-files0-from", isLiteral: false };
}

/** find's own expression; the commands it runs are judged separately as parts. */
export const findCommandRule: ReadOnlyRule = {
  acceptsAnyArguments: false,
  check: (args) => readFindCommand(args).problem,
};
