import type { ShellWord } from "./shell-word.js";

export interface OptionSpec {
  /** Short option letters that take a value, attached (`-ofile`) or as the next word. */
  readonly shortWithValue?: string;
  /** Long option names (without `--`) that take a value, as `--name=value` or the next word. */
  readonly longWithValue?: readonly string[];
  /** Stop at the first positional word (commands that run another command: env, xargs, timeout). */
  readonly stopAtFirstPositional?: boolean;
  /** Treat `-N` (a dash and digits) as an option, as nice and kill do. */
  readonly allowNumericOptions?: boolean;
}

export interface ScannedOption {
  /** `-x` for short options, `--name` for long ones, exactly as spelled (long ones may be abbreviated). */
  readonly name: string;
  readonly value?: ShellWord;
  /** The value was attached (`-ofile`, `--output=file`) rather than the next word. */
  readonly attached: boolean;
}

export interface ScannedArguments {
  readonly options: readonly ScannedOption[];
  readonly positionals: readonly ShellWord[];
  /** Index in the scanned list of the first word not consumed (with `stopAtFirstPositional`). */
  readonly restIndex: number;
  /** Words computed at run time in an option position: each could turn into any option. */
  readonly computed: readonly ShellWord[];
}

/**
 * A getopt_long-style reading of a command's arguments. Long options may be abbreviated on the
 * command line (`--out` for `--output`), so checks use `longOptionMatches` rather than equality.
 */
export function scanOptions(words: readonly ShellWord[], spec: OptionSpec = {}): ScannedArguments {
  const options: ScannedOption[] = [];
  const positionals: ShellWord[] = [];
  const computed: ShellWord[] = [];
  const shortWithValue = spec.shortWithValue ?? "";
  const longWithValue = spec.longWithValue ?? [];
  let index = 0;
  while (index < words.length) {
    const word = words[index] as ShellWord;
    const text = word.value;
    if (word.mayBeOption) {
      computed.push(word);
    }
    if (text === "--" && word.isLiteral) {
      positionals.push(...words.slice(index + 1));
      return {
        options,
        positionals,
        restIndex: spec.stopAtFirstPositional ? index + 1 : words.length,
        computed,
      };
    }
    const isNumeric = /^-\d+$/.test(text);
    if (!text.startsWith("-") || text === "-" || (isNumeric && spec.allowNumericOptions !== true)) {
      if (spec.stopAtFirstPositional) {
        return { options, positionals, restIndex: index, computed };
      }
      positionals.push(word);
      index += 1;
      continue;
    }
    if (text.startsWith("--")) {
      const equals = text.indexOf("=");
      const name = equals === -1 ? text.slice(2) : text.slice(2, equals);
      const takesValue = longWithValue.some((full) => longOptionMatches(`--${name}`, full));
      if (equals !== -1) {
        options.push({ name: `--${name}`, value: literalPart(word, text.slice(equals + 1)), attached: true });
      } else if (takesValue && index + 1 < words.length) {
        options.push({ name: `--${name}`, value: words[index + 1] as ShellWord, attached: false });
        index += 1;
      } else {
        options.push({ name: `--${name}`, attached: false });
      }
      index += 1;
      continue;
    }
    if (isNumeric) {
      options.push({ name: text, attached: false });
      index += 1;
      continue;
    }
    index += scanShortCluster(word, words[index + 1], shortWithValue, options);
  }
  return { options, positionals, restIndex: words.length, computed };
}

/** Reads `-abc` or `-ovalue`; returns how many words were consumed. */
function scanShortCluster(
  word: ShellWord,
  next: ShellWord | undefined,
  shortWithValue: string,
  options: ScannedOption[],
): number {
  const text = word.value;
  for (let position = 1; position < text.length; position += 1) {
    const letter = text.charAt(position);
    if (!shortWithValue.includes(letter)) {
      options.push({ name: `-${letter}`, attached: false });
      continue;
    }
    const rest = text.slice(position + 1);
    if (rest !== "") {
      options.push({ name: `-${letter}`, value: literalPart(word, rest), attached: true });
      return 1;
    }
    if (next !== undefined) {
      options.push({ name: `-${letter}`, value: next, attached: false });
      return 2;
    }
    options.push({ name: `-${letter}`, attached: false });
    return 1;
  }
  return 1;
}

function literalPart(word: ShellWord, value: string): ShellWord {
  return { ...word, value };
}

/**
 * True when `spelled` (e.g. `--out`) could select the long option `full` (e.g. `output`):
 * getopt_long accepts any unambiguous prefix, so every prefix is treated as a match.
 */
export function longOptionMatches(spelled: string, full: string): boolean {
  const name = spelled.replace(/^--/, "").split("=")[0] ?? "";
  return name.length > 0 && full.startsWith(name);
}

/** True when any scanned option is one of `shortNames` (e.g. "-o") or selects one of `longNames`. */
export function hasOption(
  scanned: ScannedArguments,
  shortNames: readonly string[],
  longNames: readonly string[] = [],
): ScannedOption | undefined {
  return scanned.options.find((option) =>
    option.name.startsWith("--")
      ? longNames.some((full) => longOptionMatches(option.name, full))
      : shortNames.includes(option.name),
  );
}
