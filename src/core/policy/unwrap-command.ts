import type { CommandClassification } from "./command-classification.js";
import { readFindCommand } from "./find-command.js";
import { OPTION_TABLES } from "./option-tables.js";
import { findOption, optionTable, parseOptions, type OptionTable } from "./parse-options.js";
import type { ShellWord } from "./shell-word.js";
import { SHELLS, unwrapShell, type ShellDialect } from "./unwrap-shell.js";

export interface InnerCommand {
  readonly words: readonly ShellWord[];
  /** The wrapper adds arguments read at run time (xargs). */
  readonly appendsArguments: boolean;
  /** The inner command runs in another folder: `env -C DIR`, or the found file's folder (`find -execdir`). */
  readonly changesDirectory?:
    { readonly to: ShellWord } | { readonly to: "unknown"; readonly reason: string };
}

/** How a command that runs other commands is taken apart. */
export type UnwrapResult =
  | { readonly kind: "not_wrapper" }
  /** A wrapper with a fixed verdict of its own (`command -v x`, `bash script.sh`, `env` alone). */
  | { readonly kind: "verdict"; readonly classification: CommandClassification; readonly reason: string }
  | {
      readonly kind: "inner";
      readonly via: string;
      readonly commands: readonly InnerCommand[];
      /** Variables the wrapper sets for the inner command (`env NAME=VALUE`). */
      readonly assignmentNames: readonly string[];
      /** Why the wrapper itself is not read-only, if it is not. */
      readonly problem?: string;
      /** The wrapper changes the inner command's environment (`env -i`, `env -u`, `xargs --process-slot-var`). */
      readonly changesEnvironment?: boolean;
    }
  /** A command string run by a shell (`bash -c '...'`): parsed and judged again. */
  | {
      readonly kind: "script";
      readonly via: string;
      readonly script: string;
      readonly dialect: ShellDialect;
    };

const NOT_WRAPPER: UnwrapResult = { kind: "not_wrapper" };

/** Wrappers that only change how the inner command runs, with their option tables. */
const SIMPLE_WRAPPERS: ReadonlyMap<string, OptionTable> = new Map<string, OptionTable>([
  ["nice", OPTION_TABLES.nice],
  ["ionice", OPTION_TABLES.ionice],
  ["nohup", optionTable("", "")],
  ["builtin", optionTable("", "")],
  // bash's `exec [-cl] [-a name] [command]`.
  ["exec", optionTable("cla:", "")],
  ["stdbuf", OPTION_TABLES.stdbuf],
  ["time", OPTION_TABLES.time],
  ["timeout", OPTION_TABLES.timeout],
]);

/** Why a simple wrapper is not read-only itself, given its options. */
function describeWrapperProblem(
  name: string,
  options: readonly { readonly name: string }[],
): string | undefined {
  const names = options.map((option) => option.name);
  switch (name) {
    case "time":
      // bash's `time` keyword takes only `-p`, but `\time`, `command time` and `env time` run GNU time.
      return names.some((option) => ["-o", "--output"].includes(option))
        ? "writes its timing report to a file (`time -o`)"
        : undefined;
    case "ionice":
      return names.some((option) => ["-p", "-P", "-u", "--pid", "--pgid", "--uid"].includes(option))
        ? "changes the I/O priority of other processes"
        : undefined;
    case "exec":
      return "replaces the shell with the command (`exec`), which is not approved as read-only";
    case "nohup":
      return "may write its output to `nohup.out` (when the output is a terminal)";
    default:
      return undefined;
  }
}

export function unwrapCommand(name: string, args: readonly ShellWord[]): UnwrapResult {
  if (SHELLS.has(name)) {
    return unwrapShell(name, args);
  }
  switch (name) {
    case "env":
      return unwrapEnv(args);
    case "xargs":
      return unwrapXargs(args);
    case "command":
      return unwrapCommandBuiltin(args);
    case "find": {
      const reading = readFindCommand(args);
      return {
        kind: "inner",
        via: "find -exec",
        commands: reading.commands.map((command) => ({
          words: command.words,
          appendsArguments: false,
          ...(command.inFoundFolder
            ? {
                changesDirectory: {
                  to: "unknown",
                  reason: "`find -execdir` runs it in the folder of each found file",
                } as const,
              }
            : {}),
        })),
        assignmentNames: [],
        ...(reading.problem === undefined ? {} : { problem: reading.problem }),
      };
    }
    default:
      break;
  }
  const table = SIMPLE_WRAPPERS.get(name);
  if (table === undefined) {
    return NOT_WRAPPER;
  }
  const parsed = parseOptions(name, args, table, { stopAtFirstOperand: true });
  if (!parsed.success) {
    return { kind: "verdict", classification: "unparseable", reason: parsed.error };
  }
  // timeout's first operand is the duration.
  const restIndex = name === "timeout" ? parsed.value.restIndex + 1 : parsed.value.restIndex;
  const rest = args.slice(restIndex);
  const problem = describeWrapperProblem(name, parsed.value.options);
  if (rest.length === 0) {
    return problem === undefined && name !== "timeout"
      ? {
          kind: "verdict",
          classification: "safe",
          reason: `runs \`${name}\` without a command, which only reports or changes shell state`,
        }
      : {
          kind: "verdict",
          classification: "not_allowlisted",
          reason: problem ?? `runs \`${name}\` without a command`,
        };
  }
  return {
    kind: "inner",
    via: name,
    commands: [{ words: rest, appendsArguments: false }],
    assignmentNames: [],
    ...(problem === undefined ? {} : { problem }),
  };
}

function unwrapEnv(args: readonly ShellWord[]): UnwrapResult {
  const parsed = parseOptions("env", args, OPTION_TABLES.env, { stopAtFirstOperand: true });
  if (!parsed.success) {
    return { kind: "verdict", classification: "unparseable", reason: parsed.error };
  }
  if (findOption(parsed.value, ["-S", "--split-string"]) !== undefined) {
    return {
      kind: "verdict",
      classification: "unparseable",
      reason: "uses `env -S`, which splits a string into a command the policy does not parse",
    };
  }
  let index = parsed.value.restIndex;
  let removesVariables =
    findOption(parsed.value, ["-i", "--ignore-environment", "-u", "--unset"]) !== undefined;
  if (args[index]?.isLiteral === true && args[index]?.value === "-") {
    index += 1;
    removesVariables = true;
  }
  const assignmentNames: string[] = [];
  while (index < args.length) {
    const word = args[index] as ShellWord;
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(word.value);
    if (!word.isLiteral && (match !== null || word.mayBeOption || word.value.includes("="))) {
      return {
        kind: "verdict",
        classification: "unparseable",
        reason: `passes the computed word \`${word.source}\` to \`env\``,
      };
    }
    if (match === null) {
      break;
    }
    assignmentNames.push(match[1] as string);
    index += 1;
  }
  const rest = args.slice(index);
  if (rest.length === 0) {
    // The sandbox gives commands a clean environment without tokens, so printing it reveals nothing secret.
    return { kind: "verdict", classification: "safe", reason: "prints the environment" };
  }
  const chdir = findOption(parsed.value, ["-C", "--chdir"])?.value;
  return {
    kind: "inner",
    via: "env",
    commands: [
      {
        words: rest,
        appendsArguments: false,
        ...(chdir === undefined ? {} : { changesDirectory: { to: chdir } }),
      },
    ],
    assignmentNames,
    // Commands are judged read-only in the sandbox's environment, which pins git's safe settings
    // (no bare repository found by discovery, no fsmonitor, no hooks); without them a folder that
    // looks like a repository makes `git status` run its fsmonitor.
    ...(removesVariables
      ? {
          problem:
            "removes variables from the sandbox's environment (`env -i`, `env -u`), which holds the settings that keep git from obeying a repository's configuration",
        }
      : {}),
    changesEnvironment: parsed.value.options.length > 0 || removesVariables,
  };
}

function unwrapXargs(args: readonly ShellWord[]): UnwrapResult {
  const parsed = parseOptions("xargs", args, OPTION_TABLES.xargs, { stopAtFirstOperand: true });
  if (!parsed.success) {
    return { kind: "verdict", classification: "unparseable", reason: parsed.error };
  }
  const replace = findOption(parsed.value, ["-I", "-i", "--replace"]);
  // `-i` and `--replace` without a value replace `{}`.
  const replaceString = replace === undefined ? undefined : (replace.value?.value ?? "{}");
  const slotVariable = findOption(parsed.value, ["--process-slot-var"])?.value;
  const rest = args
    .slice(parsed.value.restIndex)
    .map((word) =>
      replaceString !== undefined && replaceString !== "" && word.value.includes(replaceString)
        ? { ...word, isLiteral: false, mayBeOption: true, mayBeSeveralWords: false }
        : word,
    );
  const echo: ShellWord = {
    source: "echo",
    value: "echo",
    isLiteral: true,
    hasGlob: false,
    hasTilde: false,
    mayBeOption: false,
    mayBeSeveralWords: false,
  };
  return {
    kind: "inner",
    via: "xargs",
    // The command name itself is never replaced by GNU xargs; only its arguments are.
    commands: [
      {
        words: rest.length === 0 ? [echo] : [args[parsed.value.restIndex] as ShellWord, ...rest.slice(1)],
        appendsArguments: true,
      },
    ],
    assignmentNames: slotVariable === undefined ? [] : [slotVariable.value],
    changesEnvironment: slotVariable !== undefined,
  };
}

function unwrapCommandBuiltin(args: readonly ShellWord[]): UnwrapResult {
  const parsed = parseOptions("command", args, optionTable("pvV", ""), { stopAtFirstOperand: true });
  if (!parsed.success) {
    return { kind: "verdict", classification: "unparseable", reason: parsed.error };
  }
  if (findOption(parsed.value, ["-v", "-V"]) !== undefined) {
    return { kind: "verdict", classification: "safe", reason: "only describes a command (`command -v`)" };
  }
  const rest = args.slice(parsed.value.restIndex);
  if (rest.length === 0) {
    return { kind: "verdict", classification: "safe", reason: "runs `command` without a command" };
  }
  return {
    kind: "inner",
    via: "command",
    commands: [{ words: rest, appendsArguments: false }],
    assignmentNames: [],
  };
}

/** Strips wrappers until the program that really runs (for spotting `curl … | sudo bash`). */
export function findEffectiveCommand(words: readonly ShellWord[], depth = 0): readonly ShellWord[] {
  const name = words[0];
  if (name === undefined || depth > 8 || !name.isLiteral) {
    return words;
  }
  const result = unwrapCommand(commandBaseName(name.value), words.slice(1));
  if (result.kind !== "inner" || result.via === "find -exec") {
    return words;
  }
  const inner = result.commands[0];
  return inner === undefined ? words : findEffectiveCommand(inner.words, depth + 1);
}

const SYSTEM_BIN = /^\/(usr\/(local\/)?)?s?bin\/[^/]+$/;

/** `/usr/bin/ls` is `ls`; other paths keep their directory so a workspace `./ls` is not `ls`. */
export function commandBaseName(name: string): string {
  return SYSTEM_BIN.test(name) ? name.slice(name.lastIndexOf("/") + 1) : name;
}
