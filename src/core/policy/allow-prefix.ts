import type { BashNode, BashParser } from "./load-bash-parser.js";
import { evaluateWord, type ShellWord } from "./shell-word.js";

export type ParseAllowPrefixResult =
  | { readonly success: true; readonly value: readonly string[] }
  | { readonly success: false; readonly error: string };

/**
 * Reads an operator's allowed prefix (`npm test`, `pytest -q`) as shell words, so that it is
 * compared word by word with commands, never as a string.
 */
export function parseAllowPrefix(parser: BashParser, prefix: string): ParseAllowPrefixResult {
  return parser.parse(prefix, (root) => {
    const statements = root.namedChildren.filter(
      (child): child is BashNode => child !== null && child.type !== "comment",
    );
    const command = statements[0];
    if (root.hasError || statements.length !== 1 || command?.type !== "command") {
      return { success: false, error: `\`${prefix}\` is not a single simple command` };
    }
    const words: string[] = [];
    for (const child of command.namedChildren) {
      if (child === null) {
        continue;
      }
      const node = child.type === "command_name" ? child.namedChildren[0] : child;
      const evaluated = node === null || node === undefined ? undefined : evaluateWord(node);
      if (
        evaluated === undefined ||
        !evaluated.success ||
        !evaluated.value.isLiteral ||
        evaluated.value.hasTilde
      ) {
        return { success: false, error: `\`${prefix}\` has \`${child.text}\`, which is not a plain word` };
      }
      words.push(evaluated.value.value);
    }
    return words.length === 0
      ? { success: false, error: "the prefix is empty" }
      : { success: true, value: words };
  });
}

/**
 * The first prefix whose words begin `words`, compared whole word by whole word: `npm test`
 * matches `npm test -- -t x` but not `npm testx`. A word of the command that is computed at
 * run time (or starts with `~`) never matches, because its value is not what was compared.
 */
export function findMatchingPrefix(
  words: readonly ShellWord[],
  prefixes: readonly (readonly string[])[],
): readonly string[] | undefined {
  return prefixes.find(
    (prefix) =>
      prefix.length <= words.length &&
      prefix.every((expected, index) => {
        const word = words[index] as ShellWord;
        return word.isLiteral && !word.hasTilde && word.value === expected;
      }),
  );
}
