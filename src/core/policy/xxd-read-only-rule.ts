import { describeComputedArgument, type ReadOnlyRule } from "./read-only-rule.js";
import type { ShellWord } from "./shell-word.js";

/** Flags xxd (vim 9.0) reads by their first two characters; the exact spellings of its manual are approved. */
const FLAGS = new Set([
  "-a",
  "-autoskip",
  "-b",
  "-bits",
  "-e",
  "-u",
  "-uppercase",
  "-p",
  "-ps",
  "-postscript",
  "-plain",
  "-i",
  "-include",
  "-C",
  "-capitalize",
  "-d",
  "-E",
  "-EBCDIC",
  "-v",
  "-version",
  "-h",
  "-help",
]);
/** Options with a value, attached (`-c8`) or as the next word. */
const WITH_VALUE = /^-(c|cols|g|groupsize|s|seek|l|len|o|offset|n|name)(.*)$/;

/**
 * `xxd [options] [infile [outfile]]`: a second operand is written, and `-r` (any word xxd reads
 * as starting with `-r`, `--revert` included) turns a dump back into a binary file. xxd has its
 * own parser, so only the spellings above are approved.
 */
export const xxdReadOnlyRule: ReadOnlyRule = {
  acceptsAnyArguments: false,
  check(args: readonly ShellWord[]): string | undefined {
    let index = 0;
    while (index < args.length) {
      const word = args[index] as ShellWord;
      if (word.mayBeOption) {
        return describeComputedArgument("xxd", word);
      }
      const text = word.value;
      if (text === "--") {
        index += 1;
        break;
      }
      if (!text.startsWith("-") || text === "-" || !word.isLiteral) {
        break;
      }
      if (/^--?r/.test(text)) {
        return "uses `xxd -r`, which writes binary data back from a dump";
      }
      if (FLAGS.has(text)) {
        index += 1;
        continue;
      }
      const withValue = WITH_VALUE.exec(text);
      if (withValue === null) {
        return `uses \`xxd ${text}\`, which is not an option the policy knows`;
      }
      index += withValue[2] === "" ? 2 : 1;
    }
    const operands = args.slice(index);
    if (operands.length > 1) {
      return "gives `xxd` an output file operand, which it writes";
    }
    const operand = operands[0];
    return operand !== undefined && operand.mayBeSeveralWords
      ? `passes \`${operand.source}\` to \`xxd\`, which may become several words, the second of them a file it writes`
      : undefined;
  },
};
