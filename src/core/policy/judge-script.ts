import type { CommandPart } from "./command-classification.js";
import type { CommandLocation } from "./command-location.js";
import { findOpenedFile } from "./find-opened-file.js";
import type { BashParser } from "./load-bash-parser.js";
import { ScriptWalker } from "./script-walker.js";
import type { ShellDialect } from "./unwrap-shell.js";

export interface ScriptContext {
  readonly parser: BashParser;
  readonly allowPrefixes: readonly (readonly string[])[];
  /** How many command strings (`bash -c`, `eval`) deep this script is. */
  readonly depth: number;
  /** Variables set for the whole script by whoever runs it (`PATH=x bash -c '...'`). */
  readonly inheritedAssignments: readonly string[];
  /** The wrapper that runs this script, named in reasons. */
  readonly via?: string;
  readonly dialect: ShellDialect;
  /** The workspace and the folder the script starts in. */
  readonly location: CommandLocation;
}

const MAX_SCRIPT_DEPTH = 6;

/** Parses a command line and judges every command it would run, in source order. */
export function judgeScript(script: string, context: ScriptContext): CommandPart[] {
  if (context.depth > MAX_SCRIPT_DEPTH) {
    return [
      {
        command: script,
        words: [],
        classification: "unparseable",
        reason: "nests command strings too deeply to judge",
      },
    ];
  }
  return context.parser.parse(script, (root) => {
    const openedFile = context.location.openedFile ?? findOpenedFile(root);
    const location = openedFile === undefined ? context.location : { ...context.location, openedFile };
    return new ScriptWalker({ ...context, location }, root, script).run();
  });
}
