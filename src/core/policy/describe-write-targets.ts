import type { Verdict } from "./command-classification.js";
import type { CommandLocation } from "./command-location.js";
import { readFindCommand } from "./find-command.js";
import { OPTION_TABLES } from "./option-tables.js";
import { findOption, parseOptions, type OptionTable, type ParsedArguments } from "./parse-options.js";
import type { ShellWord } from "./shell-word.js";
import { describeRsyncTargets } from "./describe-rsync-targets.js";
import { judgeTargets, unknownTargets, type WriteKind } from "./judge-write-targets.js";

export type { WriteKind } from "./judge-write-targets.js";

interface WriterRule {
  readonly table: OptionTable;
  readonly kind: (parsed: ParsedArguments) => WriteKind;
  readonly targets: (parsed: ParsedArguments) => readonly ShellWord[];
}

const operands = (parsed: ParsedArguments): readonly ShellWord[] => parsed.operands;
const always = (kind: WriteKind) => (): WriteKind => kind;

/** `-t DIR`, `--target-directory=DIR`, or else the last operand (cp, install, ln, mv). */
function destination(parsed: ParsedArguments): readonly ShellWord[] {
  const target = findOption(parsed, ["-t", "--target-directory"])?.value;
  if (target !== undefined) {
    return [target];
  }
  const last = parsed.operands.at(-1);
  return last === undefined || parsed.operands.length < 2 ? [] : [last];
}

const WRITERS: ReadonlyMap<string, WriterRule> = new Map<string, WriterRule>([
  ["rm", { table: OPTION_TABLES.rm, kind: always("deletes"), targets: operands }],
  ["rmdir", { table: OPTION_TABLES.rmdir, kind: always("deletes"), targets: operands }],
  ["unlink", { table: OPTION_TABLES.unlink, kind: always("deletes"), targets: operands }],
  ["shred", { table: OPTION_TABLES.shred, kind: always("deletes"), targets: operands }],
  // mv removes its sources as well as writing the destination.
  [
    "mv",
    {
      table: OPTION_TABLES.mv,
      kind: always("deletes"),
      targets: (parsed) => [...parsed.operands, ...destination(parsed)],
    },
  ],
  ["cp", { table: OPTION_TABLES.cp, kind: always("overwrites"), targets: destination }],
  [
    "install",
    {
      table: OPTION_TABLES.install,
      kind: (parsed) => (findOption(parsed, ["-d", "--directory"]) === undefined ? "overwrites" : "creates"),
      targets: (parsed) =>
        findOption(parsed, ["-d", "--directory"]) === undefined ? destination(parsed) : parsed.operands,
    },
  ],
  [
    "ln",
    {
      table: OPTION_TABLES.ln,
      kind: always("overwrites"),
      // `ln TARGET` makes the link in the working folder.
      targets: (parsed) =>
        parsed.operands.length === 1 && findOption(parsed, ["-t", "--target-directory"]) === undefined
          ? [dot()]
          : destination(parsed),
    },
  ],
  ["truncate", { table: OPTION_TABLES.truncate, kind: always("overwrites"), targets: operands }],
  ["tee", { table: OPTION_TABLES.tee, kind: always("overwrites"), targets: operands }],
  ["touch", { table: OPTION_TABLES.touch, kind: always("creates"), targets: operands }],
  ["mkdir", { table: OPTION_TABLES.mkdir, kind: always("creates"), targets: operands }],
  ["mkfifo", { table: OPTION_TABLES.mkfifo, kind: always("creates"), targets: operands }],
  [
    "mknod",
    { table: OPTION_TABLES.mknod, kind: always("creates"), targets: (parsed) => parsed.operands.slice(0, 1) },
  ],
  ["chmod", { table: OPTION_TABLES.chmod, kind: always("overwrites"), targets: afterModeOrOwner }],
  ["chown", { table: OPTION_TABLES.chown, kind: always("overwrites"), targets: afterModeOrOwner }],
  ["chgrp", { table: OPTION_TABLES.chgrp, kind: always("overwrites"), targets: afterModeOrOwner }],
]);

const CHMOD_WITH_DASH_MODE: WriterRule = {
  table: OPTION_TABLES.chmod,
  kind: always("overwrites"),
  targets: operands,
};

/** chmod, chown and chgrp take a mode or owner first, unless `--reference` gives it. */
function afterModeOrOwner(parsed: ParsedArguments): readonly ShellWord[] {
  return findOption(parsed, ["--reference"]) === undefined ? parsed.operands.slice(1) : parsed.operands;
}

const CREATORS = new Set(["touch", "mkdir", "mkfifo", "mknod"]);

/** chmod modes that look like options: `-w`, `-x,u+r`. */
const DASH_MODE = /^-[rwxXstugoa0-7,+=-]+$/;

/**
 * For a command known to delete or write files, where its targets land. Outside the workspace
 * (an absolute path elsewhere, `~`, `$HOME`, `..` out of it) is `dangerous`; a target computed
 * at run time, or relative to a folder an earlier `cd` made unknown, is `unparseable` for a
 * command that deletes or overwrites, so that `auto` asks instead of running it. Undefined when
 * every target is inside the workspace, in the sandbox's scratch folders or a stream device.
 */
export function describeWriteTargets(
  name: string,
  args: readonly ShellWord[],
  location: CommandLocation,
  appendsArguments: boolean,
): Verdict | undefined {
  if (name === "dd") {
    const targets = args.filter((word) => word.value.startsWith("of=")).map(afterEquals);
    return judgeTargets(name, "overwrites", targets, location);
  }
  if (name === "find") {
    const reading = readFindCommand(args);
    return reading.deletes ? judgeTargets(name, "deletes", reading.startingPoints, location) : undefined;
  }
  if (name === "sed") {
    return describeSedTargets(args, location, appendsArguments);
  }
  if (name === "rsync") {
    return describeRsyncTargets(args, location, appendsArguments);
  }
  const isDashMode = (word: ShellWord): boolean =>
    name === "chmod" && word.isLiteral && DASH_MODE.test(word.value) && !/^-[Rcfv]+$/.test(word.value);
  const words = args.filter((word) => !isDashMode(word));
  // With a mode such as `-w` taken out of the options, every operand is a file.
  const rule = words.length < args.length ? CHMOD_WITH_DASH_MODE : WRITERS.get(name);
  if (rule === undefined) {
    return undefined;
  }
  const parsed = parseOptions(name, words, rule.table);
  if (!parsed.success) {
    // Creating files cannot destroy anything; for the others an unreadable argument may be any target.
    return CREATORS.has(name)
      ? undefined
      : unknownTargets(
          name,
          name === "cp" || name === "install" || name === "ln" ? "overwrites" : "deletes",
          `it ${parsed.error}`,
        );
  }
  const kind = rule.kind(parsed.value);
  if (appendsArguments && kind !== "creates") {
    return unknownTargets(name, kind, "it gets further files from its input through xargs");
  }
  return judgeTargets(name, kind, rule.targets(parsed.value), location);
}

/** `sed -i`: every file operand is rewritten (the first operand is the script without `-e`/`-f`). */
function describeSedTargets(
  args: readonly ShellWord[],
  location: CommandLocation,
  appendsArguments: boolean,
): Verdict | undefined {
  const parsed = parseOptions("sed", args, OPTION_TABLES.sed);
  if (!parsed.success) {
    return args.some((word) => /^-(-in|[^-]*i)/.test(word.value))
      ? unknownTargets("sed", "overwrites", `it ${parsed.error}`)
      : undefined;
  }
  if (findOption(parsed.value, ["-i", "--in-place"]) === undefined) {
    return undefined;
  }
  if (appendsArguments) {
    return unknownTargets("sed", "overwrites", "it gets further files from its input through xargs");
  }
  const hasScriptOption = findOption(parsed.value, ["-e", "--expression", "-f", "--file"]) !== undefined;
  return judgeTargets("sed", "overwrites", parsed.value.operands.slice(hasScriptOption ? 0 : 1), location);
}

/** rsync options whose value is the next word, from its manual (rsync 3.2). */
function afterEquals(word: ShellWord): ShellWord {
  const value = word.value.slice(word.value.indexOf("=") + 1);
  return {
    ...word,
    value,
    source: word.source.replace(/^of=/, ""),
    hasTilde: word.hasTilde || value.startsWith("~"),
  };
}

function dot(): ShellWord {
  return {
    source: ".",
    value: ".",
    isLiteral: true,
    hasGlob: false,
    hasTilde: false,
    mayBeOption: false,
    mayBeSeveralWords: false,
  };
}
