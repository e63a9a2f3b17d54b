import { findCommandRule } from "./find-command.js";
import { gitReadOnlyRule } from "./git-read-only-rule.js";
import { ANY_ARGUMENTS, describeComputedArgument, type ReadOnlyRule } from "./read-only-rule.js";
import { hasOption, scanOptions, type OptionSpec } from "./scan-options.js";
import { sedReadOnlyRule } from "./sed-read-only-rule.js";
import type { ShellWord } from "./shell-word.js";

/**
 * Options that make an otherwise read-only command write a file or run a program. Computed
 * arguments are refused for these commands because they could spell one of the options.
 */
function refuseOptions(
  command: string,
  spec: OptionSpec,
  forbidden: { readonly short?: readonly string[]; readonly long?: readonly string[] },
  why: string,
  maxPositionals = Number.POSITIVE_INFINITY,
): ReadOnlyRule {
  return {
    acceptsAnyArguments: false,
    check(args: readonly ShellWord[]): string | undefined {
      const scanned = scanOptions(args, spec);
      const computed = scanned.computed[0];
      if (computed !== undefined) {
        return describeComputedArgument(command, computed);
      }
      const found = hasOption(scanned, forbidden.short ?? [], forbidden.long ?? []);
      if (found !== undefined) {
        return `uses \`${command} ${found.name}\`, which ${why}`;
      }
      if (scanned.positionals.length > maxPositionals) {
        return `gives \`${command}\` more than ${maxPositionals} file argument(s); the extra one is an output file it writes`;
      }
      return undefined;
    },
  };
}

const RULES: ReadonlyMap<string, ReadOnlyRule> = new Map<string, ReadOnlyRule>([
  ...[
    "ls",
    "cat",
    "head",
    "tail",
    "wc",
    "pwd",
    "echo",
    "true",
    "false",
    ":",
    "cut",
    "tr",
    "stat",
    "du",
    "df",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "which",
    "type",
    "uname",
    "whoami",
    "id",
    "nl",
    "od",
    "md5sum",
    "sha1sum",
    "sha224sum",
    "sha256sum",
    "sha384sum",
    "sha512sum",
    "b2sum",
    "cksum",
    "test",
    "[",
    "grep",
    "egrep",
    "fgrep",
    "diff",
    "cmp",
    "comm",
    "tac",
    "rev",
    "seq",
    "column",
    "jq",
    "printenv",
    "cd",
  ].map((name): [string, ReadOnlyRule] => [name, ANY_ARGUMENTS]),
  [
    "printf",
    refuseOptions("printf", { stopAtFirstPositional: true }, { short: ["-v"] }, "assigns a shell variable"),
  ],
  [
    "date",
    refuseOptions(
      "date",
      { shortWithValue: "dfrsI", longWithValue: ["date", "file", "reference", "set"] },
      { short: ["-s"], long: ["set"] },
      "sets the system clock",
    ),
  ],
  [
    "sort",
    refuseOptions(
      "sort",
      {
        shortWithValue: "koStT",
        longWithValue: [
          "key",
          "output",
          "buffer-size",
          "field-separator",
          "temporary-directory",
          "compress-program",
          "files0-from",
          "batch-size",
          "parallel",
          "random-source",
          "sort",
        ],
      },
      { short: ["-o"], long: ["output", "compress-program"] },
      "writes a file or runs a compression program",
    ),
  ],
  [
    "uniq",
    refuseOptions(
      "uniq",
      { shortWithValue: "fsw", longWithValue: ["skip-fields", "skip-chars", "check-chars"] },
      {},
      "",
      1,
    ),
  ],
  [
    "file",
    refuseOptions(
      "file",
      {
        shortWithValue: "eFfmP",
        longWithValue: ["exclude", "exclude-quiet", "files-from", "magic-file", "separator", "parameter"],
      },
      { short: ["-C"], long: ["compile"] },
      "writes a compiled magic file",
    ),
  ],
  [
    "tree",
    refuseOptions(
      "tree",
      { shortWithValue: "LPIHTo", longWithValue: ["charset", "filelimit", "timefmt", "sort", "infile"] },
      { short: ["-o", "-R"], long: ["output"] },
      "writes output files",
    ),
  ],
  [
    "xxd",
    refuseOptions("xxd", { shortWithValue: "cglosn" }, { short: ["-r"] }, "writes binary data back", 1),
  ],
  [
    "rg",
    refuseOptions(
      "rg",
      {
        shortWithValue: "ABCEefgjMmrTtd",
        longWithValue: [
          "after-context",
          "before-context",
          "context",
          "encoding",
          "regexp",
          "file",
          "glob",
          "iglob",
          "threads",
          "max-columns",
          "max-count",
          "replace",
          "type-not",
          "type",
          "max-depth",
          "pre",
          "pre-glob",
          "hostname-bin",
          "type-add",
          "type-clear",
          "sort",
          "sortr",
          "colors",
          "color",
          "context-separator",
          "field-context-separator",
          "field-match-separator",
          "path-separator",
          "dfa-size-limit",
          "regex-size-limit",
          "engine",
          "ignore-file",
          "max-filesize",
          "hyperlink-format",
        ],
      },
      { long: ["pre", "hostname-bin"] },
      "runs another program",
    ),
  ],
  ["sed", sedReadOnlyRule],
  ["git", gitReadOnlyRule],
  ["find", findCommandRule],
]);

/**
 * The read-only allowlist. `awk` is deliberately absent: `system()`, pipes and `print >` let any
 * awk program run commands or write files, and its programs are not checked here.
 */
export function findReadOnlyRule(commandName: string): ReadOnlyRule | undefined {
  return RULES.get(commandName);
}
