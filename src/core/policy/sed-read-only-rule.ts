import type { ReadOnlyRule } from "./read-only-rule.js";
import { describeComputedArgument } from "./read-only-rule.js";
import { OPTION_TABLES } from "./option-tables.js";
import { parseOptions } from "./parse-options.js";
import type { ShellWord } from "./shell-word.js";

/** Commands that only shape what sed prints. `s`, `w`, `W`, `r`, `R`, `e` and `y` are left out. */
const PRINT_COMMANDS = new Set([
  "p",
  "P",
  "=",
  "l",
  "q",
  "Q",
  "n",
  "N",
  "d",
  "D",
  "x",
  "h",
  "H",
  "g",
  "G",
  "z",
  "F",
  "{",
  "}",
]);
const NUMERIC_ARGUMENT_COMMANDS = new Set(["l", "q", "Q"]);

/** Options that only change how sed reads, matches or prints; `-i`, `-f` and `--follow-symlinks` are left out. */
const SAFE_OPTIONS = new Set([
  "-n",
  "--quiet",
  "--silent",
  "-E",
  "-r",
  "--regexp-extended",
  "-s",
  "--separate",
  "-u",
  "--unbuffered",
  "-z",
  "--null-data",
  "--posix",
  "--debug",
  "--sandbox",
  "-e",
  "--expression",
  "-l",
  "--line-length",
]);

/**
 * sed is read-only only as `sed -n` with a script made of addresses and print-like commands:
 * anything else could edit in place, write files (`w`, `s///w`) or run commands (`e`).
 */
export const sedReadOnlyRule: ReadOnlyRule = {
  acceptsAnyArguments: false,
  check(args: readonly ShellWord[]): string | undefined {
    const parsed = parseOptions("sed", args, OPTION_TABLES.sed);
    if (!parsed.success) {
      return parsed.error;
    }
    let quiet = false;
    const scripts: ShellWord[] = [];
    for (const option of parsed.value.options) {
      if (!SAFE_OPTIONS.has(option.name)) {
        return `uses \`sed ${option.name}\`, which can edit files in place or read a script the policy cannot check`;
      }
      if (option.name === "-n" || option.name === "--quiet" || option.name === "--silent") {
        quiet = true;
      }
      if ((option.name === "-e" || option.name === "--expression") && option.value !== undefined) {
        scripts.push(option.value);
      }
    }
    if (!quiet) {
      return "runs `sed` without `-n`; only `sed -n` with print commands is read-only";
    }
    const script = scripts.length > 0 ? undefined : parsed.value.operands[0];
    if (script !== undefined) {
      scripts.push(script);
    }
    if (scripts.length === 0) {
      return "runs `sed` without a script";
    }
    for (const word of scripts) {
      if (!word.isLiteral) {
        return describeComputedArgument("sed", word);
      }
      const problem = checkPrintScript(word.value);
      if (problem !== undefined) {
        return `runs the sed script \`${word.value}\`, which ${problem}`;
      }
    }
    return undefined;
  },
};

/** Undefined when the script only selects and prints lines; otherwise what is wrong with it. */
export function checkPrintScript(script: string): string | undefined {
  let index = 0;
  const skipBlanks = (): void => {
    while (index < script.length && /[\s;]/.test(script.charAt(index))) {
      index += 1;
    }
  };
  skipBlanks();
  while (index < script.length) {
    const afterAddress = readAddressRange(script, index);
    if (afterAddress === undefined) {
      return "has an address the policy cannot read";
    }
    index = afterAddress;
    while (script.charAt(index) === " " || script.charAt(index) === "!") {
      index += 1;
    }
    const command = script.charAt(index);
    if (!PRINT_COMMANDS.has(command)) {
      return `uses the command \`${command}\`, which is not a print command`;
    }
    index += 1;
    if (NUMERIC_ARGUMENT_COMMANDS.has(command)) {
      while (/[\d ]/.test(script.charAt(index)) && index < script.length) {
        index += 1;
      }
    }
    const separator = script.charAt(index);
    if (command !== "{" && index < script.length && !/[\s;}]/.test(separator)) {
      return `has \`${separator}\` after a command, where a separator was expected`;
    }
    skipBlanks();
  }
  return undefined;
}

function readAddressRange(script: string, start: number): number | undefined {
  const first = readAddress(script, start);
  if (first === undefined) {
    return undefined;
  }
  if (script.charAt(first) !== ",") {
    return first;
  }
  const offset = /^[+~]\d+/.exec(script.slice(first + 1));
  if (offset !== null) {
    return first + 1 + offset[0].length;
  }
  const second = readAddress(script, first + 1);
  return second === first + 1 ? undefined : second;
}

/** Reads a line number, `$`, `first~step`, `/regex/` or `\cregexc` with its flags; returns where it ends. */
function readAddress(script: string, start: number): number | undefined {
  const simple = /^(\d+(~\d+)?|\$)/.exec(script.slice(start));
  if (simple !== null) {
    return start + simple[0].length;
  }
  let delimiter = script.charAt(start);
  let index = start + 1;
  if (delimiter === "\\") {
    delimiter = script.charAt(start + 1);
    index = start + 2;
  } else if (delimiter !== "/") {
    return start;
  }
  if (delimiter === "" || delimiter === "\n" || delimiter === "\\") {
    return undefined;
  }
  let inBracket = false;
  while (index < script.length) {
    const character = script.charAt(index);
    if (character === "\n") {
      return undefined;
    }
    if (character === "\\") {
      index += 2;
      continue;
    }
    if (inBracket) {
      // Implementations differ on a delimiter inside `[...]`; refuse rather than guess.
      if (character === delimiter) {
        return undefined;
      }
      if (character === "]") {
        inBracket = false;
      }
    } else if (character === "[") {
      inBracket = true;
      if (script.charAt(index + 1) === "^") {
        index += 1;
      }
      if (script.charAt(index + 1) === "]") {
        index += 1;
      }
    } else if (character === delimiter) {
      index += 1;
      while (script.charAt(index) === "I" || script.charAt(index) === "M") {
        index += 1;
      }
      return index;
    }
    index += 1;
  }
  return undefined;
}
