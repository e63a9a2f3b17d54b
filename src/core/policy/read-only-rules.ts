import { findCommandRule } from "./find-command.js";
import { gitReadOnlyRule } from "./git-read-only-rule.js";
import { OPTION_TABLES } from "./option-tables.js";
import { optionTable } from "./parse-options.js";
import { ANY_ARGUMENTS, checkedOptions, type ReadOnlyRule } from "./read-only-rule.js";
import { readBuiltinRule, printfBuiltinRule } from "./builtin-read-only-rules.js";
import { sedReadOnlyRule } from "./sed-read-only-rule.js";
import { testArgumentsRule } from "./judge-test-arguments.js";
import { xxdReadOnlyRule } from "./xxd-read-only-rule.js";

/**
 * Commands with no option or operand that writes a file or runs a program, checked against
 * `--help` of coreutils 9.1, diffutils 3.8, grep 3.8, util-linux 2.38, jq 1.6 and bash 5.2 here.
 * Each may be given any arguments, even ones computed at run time.
 */
const ANY_ARGUMENT_COMMANDS: Readonly<Record<string, string>> = {
  ls: "lists; `--dired`, `--hyperlink`, `-Z` only change what it prints",
  cat: "prints files; every option formats the output",
  head: "prints the start of files",
  tail: "prints the end of files; `-f` and `--pid` only wait",
  wc: "counts; `--files0-from` reads a list of files",
  cut: "prints fields; `--output-delimiter` is a string, not a file",
  tr: "translates standard input to standard output",
  stat: "prints file status; `--printf` is a format",
  du: "prints sizes; `--files0-from` and `-X` read lists",
  df: "prints free space; `--output` is a field list and `--sync` only flushes buffers",
  basename: "prints part of its argument",
  dirname: "prints part of its argument",
  realpath: "prints resolved names",
  readlink: "prints link targets",
  uname: "prints system names",
  whoami: "prints the user name",
  id: "prints user and group ids",
  nl: "numbers lines of its input",
  od: "dumps files",
  md5sum: "prints or checks (`-c`, reading the listed files) checksums",
  sha1sum: "prints or checks checksums",
  sha224sum: "prints or checks checksums",
  sha256sum: "prints or checks checksums",
  sha384sum: "prints or checks checksums",
  sha512sum: "prints or checks checksums",
  b2sum: "prints or checks checksums",
  cksum: "prints or checks checksums",
  grep: "searches; `-f` and `--exclude-from` read files, nothing writes or runs a program",
  egrep: "runs `grep -E` with its arguments",
  fgrep: "runs `grep -F` with its arguments",
  cmp: "compares files",
  comm: "compares sorted files; `--output-delimiter` is a string",
  tac: "prints lines in reverse; it may keep a temporary copy of a pipe in TMPDIR",
  rev: "reverses lines",
  seq: "prints numbers",
  column: "formats columns; `-o` is the output separator, not a file",
  jq: "filters JSON; its language has no way to write files or run programs, `-f` and `-L` read",
  printenv: "prints the environment (the sandbox's environment has no secrets)",
  which: "the Debian script only searches PATH",
  echo: "the bash builtin prints its arguments",
  pwd: "the bash builtin prints the working directory",
  true: "the bash builtin does nothing",
  false: "the bash builtin does nothing",
  ":": "the bash builtin does nothing (its arguments are still expanded, and judged as words)",
  type: "the bash builtin describes commands",
  // The walker follows the new directory for the checks that depend on it.
  cd: "the bash builtin changes the working directory of the shell",
};

const RULES: ReadonlyMap<string, ReadOnlyRule> = new Map<string, ReadOnlyRule>([
  ...Object.keys(ANY_ARGUMENT_COMMANDS).map((name): [string, ReadOnlyRule] => [name, ANY_ARGUMENTS]),
  // `test -v 'a[$(cmd)]'` evaluates the subscript; bash's `-eq` does not evaluate its operands.
  ["test", testArgumentsRule("test")],
  ["[", testArgumentsRule("[")],
  ["printf", printfBuiltinRule],
  ["read", readBuiltinRule],
  [
    "sort",
    checkedOptions("sort", {
      table: OPTION_TABLES.sort,
      forbidden: {
        "-o": "writes its output to a file",
        "--output": "writes its output to a file",
        "--compress-program": "runs a program to compress its temporary files",
        "-T": "writes temporary files in the given directory",
        "--temporary-directory": "writes temporary files in the given directory",
      },
    }),
  ],
  // `uniq [INPUT [OUTPUT]]`: a second operand is written.
  ["uniq", checkedOptions("uniq", { table: OPTION_TABLES.uniq, forbidden: {}, maxOperands: 1 })],
  [
    "date",
    checkedOptions("date", {
      table: OPTION_TABLES.date,
      forbidden: { "-s": "sets the system clock", "--set": "sets the system clock" },
    }),
  ],
  [
    "diff",
    checkedOptions("diff", {
      table: OPTION_TABLES.diff,
      forbidden: { "-l": "runs `pr` on its output", "--paginate": "runs `pr` on its output" },
    }),
  ],
  [
    "file",
    checkedOptions("file", {
      table: OPTION_TABLES.file,
      forbidden: {
        "-C": "writes a compiled magic file",
        "--compile": "writes a compiled magic file",
        "-p": "sets the access times of the files it reads back (a write)",
        "--preserve-date": "sets the access times of the files it reads back (a write)",
        "-z": "runs decompression programs on the files",
        "-Z": "runs decompression programs on the files",
        "--uncompress": "runs decompression programs on the files",
        "--uncompress-noreport": "runs decompression programs on the files",
      },
    }),
  ],
  // tree is not installed here: approved only with listing flags from its manual, exact spellings.
  // Left out on purpose: `-o FILE` (writes its output), `-R` (writes an HTML file per folder with -H).
  [
    "tree",
    checkedOptions("tree", {
      table: optionTable(
        "adlfxL:P:I:qNQpugshDFvtcUriASnCJX",
        "gitignore ignore-case matchdirs prune noreport dirsfirst si du inodes device charset= filelimit= timefmt= sort=",
        false,
        false,
      ),
      forbidden: {},
    }),
  ],
  ["xxd", xxdReadOnlyRule],
  // ripgrep is not installed here: approved only with search and output flags from its manual,
  // exact spellings. Left out on purpose: `--pre`, `--pre-glob`, `--hostname-bin` (run a
  // program) and `-z`/`--search-zip` (runs decompression programs).
  [
    "rg",
    checkedOptions("rg", {
      table: optionTable(
        "iswxvFnNHIlcoqLUP0bpauA:B:C:e:f:g:t:T:m:d:M:j:E:r:",
        "ignore-case smart-case case-sensitive word-regexp line-regexp invert-match fixed-strings line-number no-line-number with-filename no-filename files-with-matches files-without-match count count-matches only-matching quiet hidden no-ignore no-ignore-vcs no-ignore-dot no-ignore-parent no-ignore-global follow files no-heading heading column vimgrep json multiline multiline-dotall pcre2 no-messages null stats trim byte-offset pretty no-config text binary passthru crlf null-data one-file-system type-list after-context= before-context= context= regexp= file= glob= iglob= type= type-not= max-count= max-depth= max-filesize= max-columns= threads= sort= sortr= color= colors= encoding= replace= context-separator= path-separator= field-match-separator= field-context-separator= engine= type-add= ignore-file=",
        false,
        false,
      ),
      forbidden: {},
    }),
  ],
  ["sed", sedReadOnlyRule],
  ["git", gitReadOnlyRule],
  ["find", findCommandRule],
]);

/**
 * The read-only allowlist. `awk` is deliberately absent: `system()`, pipes and `print >` let any
 * awk program run commands or write files, and its programs are not checked here. So are pagers
 * (`less` runs commands with `!` and through LESSOPEN) and `nohup` (it may write `nohup.out`).
 */
export function findReadOnlyRule(commandName: string): ReadOnlyRule | undefined {
  return RULES.get(commandName);
}
