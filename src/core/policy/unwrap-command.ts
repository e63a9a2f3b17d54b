import type { CommandClassification } from "./command-classification.js";
import { readFindCommand } from "./find-command.js";
import { hasOption, scanOptions, type OptionSpec } from "./scan-options.js";
import type { ShellWord } from "./shell-word.js";
import { SHELLS, unwrapShell } from "./unwrap-shell.js";

export interface InnerCommand {
  readonly words: readonly ShellWord[];
  /** The wrapper adds arguments read at run time (xargs). */
  readonly appendsArguments: boolean;
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
    }
  /** A command string run by a shell (`bash -c '...'`, `eval '...'`): parsed and judged again. */
  | { readonly kind: "script"; readonly via: string; readonly script: string };

const NOT_WRAPPER: UnwrapResult = { kind: "not_wrapper" };

/** Wrappers that only change how the inner command runs, with their option shapes. */
const SIMPLE_WRAPPERS: ReadonlyMap<string, OptionSpec> = new Map<string, OptionSpec>([
  ["nice", { shortWithValue: "n", longWithValue: ["adjustment"], allowNumericOptions: true }],
  ["ionice", { shortWithValue: "cnpPu", longWithValue: ["class", "classdata", "pid", "pgid", "uid"] }],
  ["nohup", {}],
  ["builtin", {}],
  ["exec", { shortWithValue: "a" }],
  ["stdbuf", { shortWithValue: "ioe", longWithValue: ["input", "output", "error"] }],
  ["time", { shortWithValue: "fo", longWithValue: ["format", "output"] }],
  [
    "sudo",
    {
      shortWithValue: "uUgCDhprtTc",
      longWithValue: ["user", "group", "chdir", "host", "prompt", "role", "type", "other-user", "close-from"],
    },
  ],
  ["doas", { shortWithValue: "uC" }],
]);

export function unwrapCommand(name: string, args: readonly ShellWord[]): UnwrapResult {
  if (SHELLS.has(name)) {
    return unwrapShell(name, args);
  }
  switch (name) {
    case "eval":
      return unwrapEval(args);
    case "env":
      return unwrapEnv(args);
    case "xargs":
      return unwrapXargs(args);
    case "timeout":
      return unwrapTimeout(args);
    case "command":
      return unwrapCommandBuiltin(args);
    case "find": {
      const reading = readFindCommand(args);
      return {
        kind: "inner",
        via: "find -exec",
        commands: reading.commands.map((words) => ({ words, appendsArguments: false })),
        assignmentNames: [],
        ...(reading.problem === undefined ? {} : { problem: reading.problem }),
      };
    }
    default:
      break;
  }
  const spec = SIMPLE_WRAPPERS.get(name);
  if (spec === undefined) {
    return NOT_WRAPPER;
  }
  const scanned = scanOptions(args, { ...spec, stopAtFirstPositional: true });
  const rest = args.slice(scanned.restIndex);
  let problem: string | undefined;
  if (name === "time" && hasOption(scanned, ["-o"], ["output"]) !== undefined) {
    problem = "writes its timing report to a file (`time -o`)";
  }
  if (name === "ionice" && hasOption(scanned, ["-p", "-P", "-u"], ["pid", "pgid", "uid"]) !== undefined) {
    problem = "changes the I/O priority of other processes";
  }
  if (rest.length === 0) {
    return problem === undefined
      ? {
          kind: "verdict",
          classification: "safe",
          reason: `runs \`${name}\` without a command, which only reports or changes shell state`,
        }
      : { kind: "verdict", classification: "not_allowlisted", reason: problem };
  }
  return {
    kind: "inner",
    via: name,
    commands: [{ words: rest, appendsArguments: false }],
    assignmentNames: [],
    ...(problem === undefined ? {} : { problem }),
  };
}

function unwrapEval(args: readonly ShellWord[]): UnwrapResult {
  const computed = args.find((word) => !word.isLiteral);
  if (computed !== undefined) {
    return {
      kind: "verdict",
      classification: "unparseable",
      reason: `evaluates \`${computed.source}\`, which is computed at run time`,
    };
  }
  return { kind: "script", via: "eval", script: args.map((word) => word.value).join(" ") };
}

function unwrapEnv(args: readonly ShellWord[]): UnwrapResult {
  const scanned = scanOptions(args, {
    shortWithValue: "uCS",
    longWithValue: ["unset", "chdir", "split-string"],
    stopAtFirstPositional: true,
  });
  if (hasOption(scanned, ["-S"], ["split-string"]) !== undefined) {
    return {
      kind: "verdict",
      classification: "unparseable",
      reason: "uses `env -S`, which splits a string into a command the policy does not parse",
    };
  }
  let index = scanned.restIndex;
  if (args[index]?.value === "-") {
    index += 1;
  }
  const assignmentNames: string[] = [];
  while (index < args.length) {
    const word = args[index] as ShellWord;
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(word.value);
    if (!word.isLiteral && (match !== null || word.mayBeOption)) {
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
  return { kind: "inner", via: "env", commands: [{ words: rest, appendsArguments: false }], assignmentNames };
}

function unwrapXargs(args: readonly ShellWord[]): UnwrapResult {
  const scanned = scanOptions(args, {
    shortWithValue: "adELnPsI",
    longWithValue: ["arg-file", "delimiter", "max-args", "max-procs", "max-chars", "process-slot-var"],
    stopAtFirstPositional: true,
  });
  const rest = args.slice(scanned.restIndex);
  const echo: ShellWord = {
    source: "echo",
    value: "echo",
    isLiteral: true,
    hasGlob: false,
    hasTilde: false,
    mayBeOption: false,
  };
  return {
    kind: "inner",
    via: "xargs",
    commands: [{ words: rest.length === 0 ? [echo] : rest, appendsArguments: true }],
    assignmentNames: [],
  };
}

function unwrapTimeout(args: readonly ShellWord[]): UnwrapResult {
  const scanned = scanOptions(args, {
    shortWithValue: "ks",
    longWithValue: ["kill-after", "signal"],
    stopAtFirstPositional: true,
  });
  const rest = args.slice(scanned.restIndex + 1);
  if (rest.length === 0) {
    return { kind: "verdict", classification: "not_allowlisted", reason: "runs `timeout` without a command" };
  }
  return {
    kind: "inner",
    via: "timeout",
    commands: [{ words: rest, appendsArguments: false }],
    assignmentNames: [],
  };
}

function unwrapCommandBuiltin(args: readonly ShellWord[]): UnwrapResult {
  const scanned = scanOptions(args, { stopAtFirstPositional: true });
  if (hasOption(scanned, ["-v", "-V"]) !== undefined) {
    return { kind: "verdict", classification: "safe", reason: "only describes a command (`command -v`)" };
  }
  const rest = args.slice(scanned.restIndex);
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
