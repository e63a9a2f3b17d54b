import { runHostGit, runHostGitForExit, type HostRepository } from "../../core/git/index.js";

const DIFF_OPTIONS = [
  "--no-color",
  "--no-ext-diff",
  "--no-textconv",
  "--find-renames",
  "--src-prefix=a/",
  "--dst-prefix=b/",
];

/** Branches tried, in order, when the clone does not say which is the default (origin/HEAD). */
const USUAL_DEFAULT_BRANCHES = ["origin/main", "origin/master", "main", "master"];

/**
 * The base a local review compares with when none is given: the default branch as the clone
 * knows it (`origin/HEAD`), else the usual names; null when none of them exists.
 */
export async function findDefaultBase(repository: HostRepository): Promise<string | null> {
  const symbolic = await runHostGitForExit(repository, [
    "symbolic-ref",
    "--quiet",
    "--short",
    "refs/remotes/origin/HEAD",
  ]);
  if (symbolic.exitCode === 0 && symbolic.stdout.trim() !== "") return symbolic.stdout.trim();
  for (const name of USUAL_DEFAULT_BRANCHES) {
    const found = await runHostGitForExit(repository, [
      "rev-parse",
      "--verify",
      "--quiet",
      `${name}^{commit}`,
    ]);
    if (found.exitCode === 0) return name;
  }
  return null;
}

/**
 * What a pull request from this checkout would show, and what is not committed yet: the work tree
 * (staged, unstaged and untracked files that are not ignored) against the merge base of `base`
 * and HEAD.
 */
export async function diffLocalChanges(
  repository: HostRepository,
  base: string,
): Promise<
  { readonly success: true; readonly value: string } | { readonly success: false; readonly error: string }
> {
  const settings = { settings: [["core.quotePath", "false"]] as [string, string][] };
  const mergeBase = (await runHostGit(repository, ["merge-base", base, "HEAD"])).stdout.trim();
  const tracked = (await runHostGit(repository, ["diff", ...DIFF_OPTIONS, mergeBase, "--"], settings)).stdout;
  const untracked = (
    await runHostGit(repository, ["ls-files", "-z", "--others", "--exclude-standard"], settings)
  ).stdout
    .split("\0")
    .filter((file) => file !== "");
  const added: string[] = [];
  for (const file of untracked) {
    // --no-index exits 1 when the files differ, which a new file always does.
    const diff = await runHostGitForExit(
      repository,
      ["diff", "--no-index", ...DIFF_OPTIONS, "--", "/dev/null", file],
      { ...settings, ...(repository.workTree === undefined ? {} : { cwd: repository.workTree }) },
    );
    if (diff.exitCode > 1)
      return { success: false, error: `git diff of the new file ${file} failed: ${diff.stderr.trim()}` };
    added.push(diff.stdout);
  }
  return { success: true, value: tracked + added.join("") };
}
