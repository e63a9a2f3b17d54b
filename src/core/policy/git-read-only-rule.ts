import { describeComputedArgument, type ReadOnlyRule, type ReadOnlyRuleContext } from "./read-only-rule.js";
import { hasOption, scanOptions } from "./scan-options.js";
import type { ShellWord } from "./shell-word.js";

/**
 * Global options allowed before the subcommand. Refused on purpose: `-c` and `--config-env`
 * (config such as `core.pager` or `core.fsmonitor` runs programs), `--exec-path` (where git finds
 * its subcommands), `-C`, `--git-dir`, `--work-tree` and `--bare` (they point git at another
 * repository, such as a bare repository committed inside the checkout, whose config would then
 * be obeyed), `-p`/`--paginate` (runs a pager).
 */
const ALLOWED_GLOBAL_OPTIONS = new Set([
  "--no-pager",
  "-P",
  "--no-replace-objects",
  "--no-lazy-fetch",
  "--no-optional-locks",
  "--no-advice",
  "--literal-pathspecs",
  "--glob-pathspecs",
  "--noglob-pathspecs",
  "--icase-pathspecs",
  "--version",
]);

/**
 * Options that write a file or run an external program, per read-only subcommand. git's own
 * parser accepts unique prefixes of long options for most subcommands, so any prefix of these
 * names is refused (`--out`, `--ext`). `--show-signature` runs gpg, which writes its trust
 * database under HOME.
 */
const DIFF_OUTPUT_OPTIONS = ["output", "ext-diff", "textconv", "show-signature"];
const FORBIDDEN_OPTIONS: ReadonlyMap<
  string,
  { readonly short: readonly string[]; readonly long: readonly string[] }
> = new Map([
  ["status", { short: [], long: [] }],
  ["log", { short: [], long: DIFF_OUTPUT_OPTIONS }],
  ["diff", { short: [], long: DIFF_OUTPUT_OPTIONS }],
  ["show", { short: [], long: DIFF_OUTPUT_OPTIONS }],
  ["rev-parse", { short: [], long: [] }],
  ["ls-files", { short: [], long: [] }],
  ["ls-tree", { short: [], long: [] }],
  ["rev-list", { short: [], long: DIFF_OUTPUT_OPTIONS }],
  // `--dirty` and `--broken` refresh the index, which writes `.git/index`.
  ["describe", { short: [], long: ["dirty", "broken"] }],
  ["show-ref", { short: [], long: [] }],
  ["merge-base", { short: [], long: [] }],
  ["blame", { short: [], long: ["textconv"] }],
  ["grep", { short: ["-O"], long: ["open-files-in-pager", "ext-grep", "textconv"] }],
]);

/** `git branch` options that only list; everything else creates, deletes, moves or configures branches. */
const BRANCH_LISTING_OPTIONS = new Set([
  "-a",
  "--all",
  "-r",
  "--remotes",
  "-l",
  "--list",
  "-v",
  "-vv",
  "--verbose",
  "-q",
  "--quiet",
  "--show-current",
  "--contains",
  "--no-contains",
  "--merged",
  "--no-merged",
  "--points-at",
  "--sort",
  "--format",
  "--color",
  "--no-color",
  "--column",
  "--no-column",
  "-i",
  "--ignore-case",
  "--abbrev",
  "--no-abbrev",
  "--omit-empty",
]);
const BRANCH_OPTIONS_WITH_VALUE = [
  "contains",
  "no-contains",
  "merged",
  "no-merged",
  "points-at",
  "sort",
  "format",
];

export const gitReadOnlyRule: ReadOnlyRule = {
  acceptsAnyArguments: false,
  check(args: readonly ShellWord[], context: ReadOnlyRuleContext): string | undefined {
    if (!context.isAtWorkspaceRoot) {
      // git looks for a repository from the working directory up; a folder of the checkout that
      // holds HEAD, objects, refs and a config is taken for a repository, and its config obeyed
      // (core.fsmonitor runs a program on `git status`).
      return "runs git outside the workspace root, where a repository committed inside the checkout would be found and its configuration obeyed";
    }
    let index = 0;
    while (index < args.length && (args[index] as ShellWord).value.startsWith("-")) {
      const word = args[index] as ShellWord;
      if (!word.isLiteral) {
        return describeComputedArgument("git", word);
      }
      if (!ALLOWED_GLOBAL_OPTIONS.has(word.value)) {
        return `uses the git option \`${word.value}\`, which can change which config, repository or program git uses`;
      }
      index += 1;
    }
    const subcommandWord = args[index];
    if (subcommandWord === undefined) {
      return undefined;
    }
    if (!subcommandWord.isLiteral) {
      return describeComputedArgument("git", subcommandWord);
    }
    const subcommand = subcommandWord.value;
    const rest = args.slice(index + 1);
    if (subcommand === "branch") {
      return checkBranchListing(rest);
    }
    const forbidden = FORBIDDEN_OPTIONS.get(subcommand);
    if (forbidden === undefined) {
      return `runs \`git ${subcommand}\`, which is not one of the read-only git subcommands`;
    }
    // Words after `--` are scanned too: a value that swallowed `--` would leave options after it.
    const scanned = scanOptions(
      rest.map((word) => (word.isLiteral && word.value === "--" ? { ...word, value: "-" } : word)),
    );
    const computed = scanned.computed[0];
    if (computed !== undefined) {
      return describeComputedArgument(`git ${subcommand}`, computed);
    }
    const found = hasOption(scanned, forbidden.short, forbidden.long);
    if (found !== undefined) {
      return `uses \`git ${subcommand} ${found.name}\`, which writes a file or runs an external program`;
    }
    const signatureFormat = rest.find((word) => word.value.includes("%G"));
    if (signatureFormat !== undefined) {
      return `uses the format \`${signatureFormat.value}\`, whose \`%G\` placeholders run gpg`;
    }
    return undefined;
  },
};

function checkBranchListing(args: readonly ShellWord[]): string | undefined {
  const scanned = scanOptions(args, { longWithValue: BRANCH_OPTIONS_WITH_VALUE });
  const computed = scanned.computed[0];
  if (computed !== undefined) {
    return describeComputedArgument("git branch", computed);
  }
  let isListing = false;
  for (const option of scanned.options) {
    // Exact names only: an abbreviation such as `--co` could mean `--copy`.
    if (!BRANCH_LISTING_OPTIONS.has(option.name) && !(option.name === "-v" || option.name === "--verbose")) {
      return `uses \`git branch ${option.name}\`, which changes branches rather than listing them`;
    }
    if (option.name === "-l" || option.name === "--list") {
      isListing = true;
    }
  }
  if (scanned.positionals.length > 0 && !isListing) {
    const name = (scanned.positionals[0] as ShellWord).value;
    return `runs \`git branch ${name}\`, which creates a branch`;
  }
  return undefined;
}
