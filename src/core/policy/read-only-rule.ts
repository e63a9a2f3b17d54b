import { findOption, parseOptions, type OptionTable, type ParsedArguments } from "./parse-options.js";
import type { ShellWord } from "./shell-word.js";

/** What a rule may need to know about where the command runs. */
export interface ReadOnlyRuleContext {
  /** The command runs in the workspace root itself (not a folder below it, not somewhere unknown). */
  readonly isAtWorkspaceRoot: boolean;
}

/** Decides whether one command, with these arguments, only reads. */
export interface ReadOnlyRule {
  /** Undefined when the arguments keep the command read-only; otherwise a predicate saying why not. */
  check(args: readonly ShellWord[], context: ReadOnlyRuleContext): string | undefined;
  /**
   * No argument can make the command write or run a program, so arguments added at run time
   * (by xargs, or computed by the shell) are harmless.
   */
  readonly acceptsAnyArguments: boolean;
}

export const ANY_ARGUMENTS: ReadOnlyRule = { check: () => undefined, acceptsAnyArguments: true };

/** The standard reason for a rule that cannot check a computed argument. */
export function describeComputedArgument(command: string, word: ShellWord): string {
  return `passes \`${word.source}\` to \`${command}\`, which is computed at run time and could become an option that writes or runs a program`;
}

export interface CheckedOptionsRule {
  readonly table: OptionTable;
  /** Options (by full name, `-o` or `--output`) that write or run a program, with why. */
  readonly forbidden: Readonly<Record<string, string>>;
  /** Operands past this many are files the command writes (`uniq IN OUT`). */
  readonly maxOperands?: number;
  /** Any further check on the parsed arguments. */
  readonly check?: (parsed: ParsedArguments) => string | undefined;
}

/**
 * A read-only rule from a command's full option table: every argument is read as getopt_long
 * would read it, unknown and ambiguous options are refused, and so are the forbidden ones.
 */
export function checkedOptions(command: string, rule: CheckedOptionsRule): ReadOnlyRule {
  return {
    acceptsAnyArguments: false,
    check(args: readonly ShellWord[]): string | undefined {
      const parsed = parseOptions(command, args, rule.table);
      if (!parsed.success) {
        return parsed.error;
      }
      const found = findOption(parsed.value, Object.keys(rule.forbidden));
      if (found !== undefined) {
        return `uses \`${command} ${found.name}\`, which ${rule.forbidden[found.name] ?? "writes or runs a program"}`;
      }
      if (rule.maxOperands !== undefined && parsed.value.operands.length > rule.maxOperands) {
        return `gives \`${command}\` more than ${rule.maxOperands} file operand(s); the next one is a file it writes`;
      }
      return rule.check?.(parsed.value);
    },
  };
}
