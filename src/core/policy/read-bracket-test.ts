import type { BashParser } from "./load-bash-parser.js";
import { readCommandNode } from "./read-command-node.js";
import { evaluateWord, type EvaluateWordResult } from "./shell-word.js";

/**
 * The words of `[ … ]`. The parser reads it as an expression, but bash runs the builtin `[` with
 * the words as arguments (split and globbed like any command's), so the text is read again as a
 * simple command. Undefined when it does not read as one.
 */
export function readBracketTest(parser: BashParser, text: string): readonly EvaluateWordResult[] | undefined {
  return parser.parse(`command ${text}`, (root) => {
    const command = root.namedChildren[0];
    if (root.hasError || root.namedChildren.length !== 1 || command?.type !== "command") {
      return undefined;
    }
    const reading = readCommandNode(command);
    return reading.args.length === 0 || reading.redirects.length > 0
      ? undefined
      : reading.args.map(evaluateWord);
  });
}
