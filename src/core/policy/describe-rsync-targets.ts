import type { Verdict } from "./command-classification.js";
import type { CommandLocation } from "./command-location.js";
import { judgeTargets, unknownTargets } from "./judge-write-targets.js";
import type { ShellWord } from "./shell-word.js";

const RSYNC_VALUE_OPTIONS = new Set([
  "-e",
  "--rsh",
  "-f",
  "--filter",
  "--exclude",
  "--include",
  "--exclude-from",
  "--include-from",
  "--files-from",
  "-T",
  "--temp-dir",
  "--log-file",
  "--backup-dir",
  "--partial-dir",
  "--compare-dest",
  "--copy-dest",
  "--link-dest",
  "--chmod",
  "--chown",
  "-B",
  "--block-size",
  "-M",
  "--remote-option",
  "--suffix",
  "--password-file",
  "--out-format",
  "--info",
  "--debug",
  "--max-size",
  "--min-size",
  "--timeout",
  "--bwlimit",
  "--port",
  "--usermap",
  "--groupmap",
  "--write-batch",
  "--only-write-batch",
  "--read-batch",
]);
/** rsync options that write a file or folder of their own. */
const RSYNC_WRITING_OPTIONS = new Set([
  "--log-file",
  "--backup-dir",
  "--write-batch",
  "--only-write-batch",
  "--temp-dir",
  "-T",
  "--partial-dir",
]);

/** rsync writes its last operand; `--remove-source-files` also deletes the sources. */
export function describeRsyncTargets(
  args: readonly ShellWord[],
  location: CommandLocation,
  appendsArguments: boolean,
): Verdict | undefined {
  const operandWords: ShellWord[] = [];
  const written: ShellWord[] = [];
  let removesSources = false;
  for (let index = 0; index < args.length; index += 1) {
    const word = args[index] as ShellWord;
    if (word.mayBeOption) {
      return unknownTargets("rsync", "overwrites", `\`${word.source}\` is computed at run time`);
    }
    if (!word.value.startsWith("-") || word.value === "-") {
      operandWords.push(word);
      continue;
    }
    const [option, attached] = word.value.split(/=(.*)/s);
    if (option === "--remove-source-files") {
      removesSources = true;
    }
    if (RSYNC_VALUE_OPTIONS.has(option ?? "")) {
      const value = attached !== undefined ? { ...word, value: attached, source: attached } : args[index + 1];
      if (attached === undefined) {
        index += 1;
      }
      if (value !== undefined && RSYNC_WRITING_OPTIONS.has(option ?? "")) {
        written.push(value);
      }
    }
  }
  if (appendsArguments) {
    return unknownTargets("rsync", "overwrites", "it gets further files from its input through xargs");
  }
  const last = operandWords.at(-1);
  const targets = removesSources ? operandWords : last === undefined || operandWords.length < 2 ? [] : [last];
  return judgeTargets("rsync", removesSources ? "deletes" : "overwrites", [...targets, ...written], location);
}
