import type { ShellWord } from "./shell-word.js";

/** Decides whether one command, with these arguments, only reads. */
export interface ReadOnlyRule {
  /** Undefined when the arguments keep the command read-only; otherwise a predicate saying why not. */
  check(args: readonly ShellWord[]): string | undefined;
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
