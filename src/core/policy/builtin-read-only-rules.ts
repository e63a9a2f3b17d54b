import { isAssignableName } from "./assignment-names.js";
import { READ_OPTIONS } from "./judge-evaluating-builtin.js";
import { parseOptions } from "./parse-options.js";
import { describeComputedArgument, type ReadOnlyRule } from "./read-only-rule.js";
import type { ShellWord } from "./shell-word.js";

/**
 * bash's `printf`: `-v NAME` assigns instead of printing (and evaluates an array subscript in
 * NAME), and a `%n` in the format assigns the number of characters printed so far to the
 * variable its argument names (`printf %n PATH` sets PATH to 0, so later commands are looked up
 * in a folder `0`). Approved only with a literal format without `%n`.
 */
export const printfBuiltinRule: ReadOnlyRule = {
  acceptsAnyArguments: false,
  check(args: readonly ShellWord[]): string | undefined {
    let index = 0;
    if (args[0]?.isLiteral === true && args[0].value === "--") {
      index = 1;
    }
    const format = args[index];
    if (format === undefined) {
      return undefined;
    }
    if (!format.isLiteral) {
      return `prints with the format \`${format.source}\`, which is computed at run time and could hold \`-v\` or \`%n\`, both of which assign shell variables`;
    }
    if (index === 0 && format.value.startsWith("-")) {
      return format.value.startsWith("-v")
        ? "uses `printf -v`, which assigns a shell variable (and evaluates an array subscript in its name as arithmetic)"
        : `uses \`printf ${format.value}\`, which is not an option the policy knows`;
    }
    if (/%[-+ #0-9.*]*n/.test(format.value.replaceAll("%%", ""))) {
      return "uses `%n` in its format, which assigns the count of printed characters to the variable its argument names";
    }
    return undefined;
  },
};

/**
 * bash's `read` into plain variable names only: `-a` fills an array, a name with `[…]` has its
 * subscript evaluated as arithmetic (`read 'a[$(cmd)]'` runs `cmd`), `-e` starts readline.
 */
export const readBuiltinRule: ReadOnlyRule = {
  acceptsAnyArguments: false,
  check(args: readonly ShellWord[]): string | undefined {
    const parsed = parseOptions("read", args, READ_OPTIONS, { stopAtFirstOperand: true });
    if (!parsed.success) {
      return parsed.error;
    }
    for (const option of parsed.value.options) {
      if (option.name === "-a") {
        return "uses `read -a`, which fills an array (whose subscripts bash evaluates as arithmetic)";
      }
      if (option.name === "-e" || option.name === "-i") {
        return `uses \`read ${option.name}\`, which starts line editing`;
      }
    }
    for (const name of args.slice(parsed.value.restIndex)) {
      if (!name.isLiteral) {
        return describeComputedArgument("read", name);
      }
      if (name.value.includes("[")) {
        return `reads into \`${name.value}\`, whose array subscript bash evaluates as arithmetic, which runs commands hidden in it`;
      }
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name.value) || !isAssignableName(name.value)) {
        return `reads into \`${name.value}\`, a variable that changes how bash or later commands behave`;
      }
    }
    return undefined;
  },
};
