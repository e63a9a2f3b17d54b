import { describeSubscript } from "./describe-subscript.js";
import type { ReadOnlyRule } from "./read-only-rule.js";
import type { ShellWord } from "./shell-word.js";

/** Unary tests whose operand is a variable name, which bash resolves with arithmetic subscripts. */
const NAME_TESTS = new Set(["-v", "-R"]);

/**
 * bash's `test` and `[`. They evaluate no arithmetic (`[ "$x" -eq 1 ]` only parses integers;
 * tried with the value `a[$(touch M)]`), but `-v NAME` and `-R NAME` look the variable up, and a
 * name with a subscript has the subscript evaluated: `test -v 'a[$(cmd)]'` runs `cmd`. Which
 * argument is an operator is decided at run time from the values, so a word that may be `-v`
 * followed by a word that may hold `[` is refused, as is any word that may split into several.
 */
export function findNameTestProblem(command: string, args: readonly ShellWord[]): string | undefined {
  let operands = args;
  if (command === "[") {
    const last = args.at(-1);
    if (last === undefined || !last.isLiteral || last.value !== "]") {
      return "is a `[` test without its closing `]`";
    }
    operands = args.slice(0, -1);
  }
  const splitting = operands.find((word) => word.mayBeSeveralWords);
  if (splitting !== undefined) {
    return `tests \`${splitting.source}\`, which bash may split into several arguments, so it cannot be known which of them \`${command}\` reads as operators (\`-v\` evaluates array subscripts)`;
  }
  for (let index = 0; index + 1 < operands.length; index += 1) {
    const operator = operands[index] as ShellWord;
    const operand = operands[index + 1] as ShellWord;
    const mayTestName = !operator.isLiteral || NAME_TESTS.has(operator.value);
    const mayHaveSubscript = !operand.isLiteral || operand.value.includes("[");
    if (mayTestName && mayHaveSubscript) {
      return describeSubscript(`${operator.source} ${operand.source}`, operand);
    }
  }
  return undefined;
}

export function testArgumentsRule(command: "test" | "["): ReadOnlyRule {
  return { acceptsAnyArguments: false, check: (args) => findNameTestProblem(command, args) };
}
