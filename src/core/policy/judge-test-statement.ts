import { findWorstVerdict, type Verdict } from "./command-classification.js";
import type { CommandLocation } from "./command-location.js";
import { judgeWords } from "./judge-words.js";
import type { BashNode, BashParser } from "./load-bash-parser.js";
import { judgeDoubleBracket } from "./judge-test-command.js";
import { readBracketTest } from "./read-bracket-test.js";
import type { ShellWord } from "./shell-word.js";

/**
 * `[[ … ]]` by its own rules; `[ … ]` read as the builtin's words (parsed again, since the grammar
 * gives its arguments a shape bash does not) and judged like `test` with those words.
 */
export function judgeTestStatement(
  node: BashNode,
  context: {
    readonly parser: BashParser;
    readonly functionNames: ReadonlySet<string>;
    readonly location: CommandLocation;
    readonly scanChildren: (node: BashNode) => Verdict[];
  },
): { readonly words: readonly ShellWord[]; readonly verdict: Verdict } {
  if (node.children[0]?.type === "[[")
    return { words: [], verdict: judgeDoubleBracket(node, context.scanChildren) };
  const read = readBracketTest(context.parser, node.text);
  if (read === undefined)
    return {
      words: [],
      verdict: { classification: "unparseable", reason: "is a `[` test the policy cannot read as words" },
    };
  const problems: Verdict[] = context.scanChildren(node);
  const words: ShellWord[] = [];
  for (const evaluated of read) {
    if (evaluated.success) words.push(evaluated.value);
    else problems.push({ classification: "unparseable", reason: evaluated.error });
  }
  const judgement = judgeWords(
    words,
    {
      allowPrefixes: [],
      functionNames: context.functionNames,
      judgeScript: () => [],
      scriptChangesDirectory: false,
    },
    { assignmentNames: [], appendsArguments: false, location: context.location },
  );
  return {
    words,
    verdict: findWorstVerdict([judgement.verdict, ...problems]) ?? {
      classification: "safe",
      reason: "only tests a condition",
    },
  };
}
