import type { ShellWord } from "./shell-word.js";

export type OptionArgument = "none" | "required" | "optional";

/** A command's options as its getopt_long call declares them. */
export interface OptionTable {
  /** Short letters, getopt style: `o:` takes a value, `w::` takes an attached value only. */
  readonly short: ReadonlyMap<string, OptionArgument>;
  readonly long: ReadonlyMap<string, OptionArgument>;
  /** `-5` is an option (`nice -5`, `uniq -2`). */
  readonly numericOptions?: boolean;
  /** Long options may be shortened to a unique prefix (glibc's getopt_long); false for other parsers. */
  readonly allowsAbbreviations: boolean;
}

/**
 * Builds a table from a getopt short string and a list of long names, each bare (`merge`),
 * with `=` when it takes a value (`output=`) or with `[=]` when the value is optional
 * (`backup[=]`). `--help` and `--version` are always there.
 */
export function optionTable(
  short: string,
  long: string,
  numericOptions = false,
  allowsAbbreviations = true,
): OptionTable {
  const shortMap = new Map<string, OptionArgument>();
  for (const match of short.matchAll(/([A-Za-z0-9])(::|:)?/g)) {
    shortMap.set(match[1] as string, match[2] === "::" ? "optional" : match[2] === ":" ? "required" : "none");
  }
  const longMap = new Map<string, OptionArgument>([
    ["help", "none"],
    ["version", "none"],
  ]);
  for (const entry of long.split(/\s+/).filter((item) => item !== "")) {
    const name = entry.replace(/(\[=\]|=)$/, "");
    longMap.set(name, entry.endsWith("[=]") ? "optional" : entry.endsWith("=") ? "required" : "none");
  }
  return { short: shortMap, long: longMap, numericOptions, allowsAbbreviations };
}

export interface ParsedOption {
  /** `-o` or `--output`: long options by their full name, however abbreviated. */
  readonly name: string;
  readonly value?: ShellWord;
  /** The value was the next word rather than attached. */
  readonly separateValue: boolean;
}

export interface ParsedArguments {
  readonly options: readonly ParsedOption[];
  readonly operands: readonly ShellWord[];
  /** With `stopAtFirstOperand`, the index of the first operand (the command a wrapper runs). */
  readonly restIndex: number;
}

export type ParseOptionsResult =
  | { readonly success: true; readonly value: ParsedArguments }
  | { readonly success: false; readonly error: string };

export interface ParseOptionsSettings {
  /** Options end at the first operand, as for a wrapper such as `env` or `timeout`. */
  readonly stopAtFirstOperand?: boolean;
}

/**
 * Reads arguments the way glibc's getopt_long does: options may follow operands, `--` ends
 * them, a long option may be abbreviated to any unambiguous prefix (an exact name wins), and a
 * value is attached or the next word. Anything the table does not declare, an ambiguous
 * abbreviation and a computed word in an option position are errors: the caller cannot tell
 * what the command would do with them.
 */
export function parseOptions(
  command: string,
  words: readonly ShellWord[],
  table: OptionTable,
  settings: ParseOptionsSettings = {},
): ParseOptionsResult {
  const options: ParsedOption[] = [];
  const operands: ShellWord[] = [];
  let index = 0;
  while (index < words.length) {
    const word = words[index] as ShellWord;
    const text = word.value;
    if (word.mayBeOption) {
      return {
        success: false,
        error: `passes \`${word.source}\` to \`${command}\`, which is computed at run time and could become an option`,
      };
    }
    if (text === "--" && word.isLiteral) {
      operands.push(...words.slice(index + 1));
      return { success: true, value: { options, operands, restIndex: index + 1 } };
    }
    // `-5` is an operand (a negative number) unless the table takes numbers or declares the digit (`xargs -0`).
    const isNumeric = /^-[0-9]+$/.test(text) && !table.short.has(text.charAt(1));
    if (
      !text.startsWith("-") ||
      text === "-" ||
      !word.isLiteral ||
      (isNumeric && table.numericOptions !== true)
    ) {
      if (settings.stopAtFirstOperand === true) {
        return { success: true, value: { options, operands, restIndex: index } };
      }
      operands.push(word);
      index += 1;
      continue;
    }
    if (isNumeric) {
      options.push({ name: text, separateValue: false });
      index += 1;
      continue;
    }
    const consumed = text.startsWith("--")
      ? readLongOption(command, word, words[index + 1], table, options)
      : readShortCluster(command, word, words[index + 1], table, options);
    if (typeof consumed === "string") {
      return { success: false, error: consumed };
    }
    index += consumed;
  }
  return { success: true, value: { options, operands, restIndex: words.length } };
}

/** The full long option `spelled` selects, or why it selects none. */
export function resolveLongOption(
  spelled: string,
  table: OptionTable,
): { readonly name: string; readonly argument: OptionArgument } | { readonly error: string } {
  const exact = table.long.get(spelled);
  if (exact !== undefined) {
    return { name: spelled, argument: exact };
  }
  const candidates = table.allowsAbbreviations
    ? [...table.long.keys()].filter((name) => name.startsWith(spelled))
    : [];
  if (candidates.length === 1) {
    const name = candidates[0] as string;
    return { name, argument: table.long.get(name) as OptionArgument };
  }
  return candidates.length === 0
    ? { error: "is not an option the policy knows" }
    : { error: `is ambiguous (${candidates.map((name) => `--${name}`).join(", ")})` };
}

function readLongOption(
  command: string,
  word: ShellWord,
  next: ShellWord | undefined,
  table: OptionTable,
  options: ParsedOption[],
): number | string {
  const text = word.value;
  const equals = text.indexOf("=");
  const spelled = equals === -1 ? text.slice(2) : text.slice(2, equals);
  const resolved = resolveLongOption(spelled, table);
  if ("error" in resolved) {
    return `uses \`${command} --${spelled}\`, which ${resolved.error}`;
  }
  const name = `--${resolved.name}`;
  if (equals !== -1) {
    if (resolved.argument === "none") {
      return `uses \`${command} ${name}\` with a value it does not take`;
    }
    options.push({ name, value: attachedValue(word, text.slice(equals + 1)), separateValue: false });
    return 1;
  }
  if (resolved.argument === "required") {
    if (next === undefined) {
      return `uses \`${command} ${name}\` without its value`;
    }
    options.push({ name, value: next, separateValue: true });
    return 2;
  }
  options.push({ name, separateValue: false });
  return 1;
}

function readShortCluster(
  command: string,
  word: ShellWord,
  next: ShellWord | undefined,
  table: OptionTable,
  options: ParsedOption[],
): number | string {
  const text = word.value;
  for (let position = 1; position < text.length; position += 1) {
    const letter = text.charAt(position);
    const argument = table.short.get(letter);
    if (argument === undefined) {
      return `uses \`${command} -${letter}\`, which is not an option the policy knows`;
    }
    const rest = text.slice(position + 1);
    if (argument === "none") {
      options.push({ name: `-${letter}`, separateValue: false });
      continue;
    }
    if (rest !== "") {
      options.push({ name: `-${letter}`, value: attachedValue(word, rest), separateValue: false });
      return 1;
    }
    if (argument === "optional") {
      options.push({ name: `-${letter}`, separateValue: false });
      return 1;
    }
    if (next === undefined) {
      return `uses \`${command} -${letter}\` without its value`;
    }
    options.push({ name: `-${letter}`, value: next, separateValue: true });
    return 2;
  }
  return 1;
}

/** The part of a word after an option's name, as its own word. */
function attachedValue(word: ShellWord, value: string): ShellWord {
  return {
    ...word,
    value,
    source: word.isLiteral ? value : word.source,
    hasTilde: word.hasTilde || value.startsWith("~"),
  };
}

/** The first option among `names` (`-o`, `--output`), by full name. */
export function findOption(parsed: ParsedArguments, names: readonly string[]): ParsedOption | undefined {
  return parsed.options.find((option) => names.includes(option.name));
}
