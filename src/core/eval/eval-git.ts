import { mkdir } from "node:fs/promises";
import path from "node:path";
import { runHostGit } from "../git/run-host-git.js";
import type { WorkspaceRepository } from "../git/workspace-repository.js";

const EVAL_IDENTITY = [
  ["user.name", "AgentForge Eval"],
  ["user.email", "eval@agentforge.invalid"],
  ["init.defaultBranch", "main"],
] as const;

/**
 * Git for the harness's own bookkeeping of an eval workspace (never for the model): a fixed
 * identity and no system or global config, so a developer's hooks or signing settings cannot
 * change what is measured. The git directory lives beside the work tree, not in it: the run's
 * commands see it read-only, so nothing they write can change what the judge's git reads.
 */
async function runEvalGit(repository: WorkspaceRepository, args: readonly string[]): Promise<string> {
  return (await runHostGit(repository, args, { settings: EVAL_IDENTITY })).stdout;
}

/** Makes `<root>/git` the repository of `workTree` and commits the fixture; copies are measured against it. */
export async function commitFixture(workTree: string, root: string): Promise<WorkspaceRepository> {
  const gitDirectory = path.join(root, "git");
  await mkdir(gitDirectory);
  await runHostGit(null, ["init", "--quiet", `--separate-git-dir=${gitDirectory}`, "--", workTree], {
    settings: EVAL_IDENTITY,
    cwd: root,
  });
  const repository: WorkspaceRepository = {
    gitDirectory,
    workTree,
    sandboxReadOnlyPaths: [gitDirectory, path.join(workTree, ".git")],
  };
  await runEvalGit(repository, ["add", "-A"]);
  await runEvalGit(repository, ["commit", "-q", "--allow-empty", "-m", "fixture"]);
  return repository;
}

/**
 * Paths added, modified or deleted since the fixture commit, by git's rules (ignored files do
 * not count), sorted.
 */
export async function listChangedFiles(repository: WorkspaceRepository): Promise<string[]> {
  const output = await runEvalGit(repository, [
    "status",
    "--porcelain=v1",
    "-z",
    "--untracked-files=all",
    "--no-renames",
    // A repository the run made inside the workspace has a config of its writing: git is not
    // started inside it (it is listed as one untracked folder).
    "--ignore-submodules=all",
  ]);
  const paths = output
    .split("\0")
    .filter((entry) => entry.length > 3)
    .map((entry) => entry.slice(3));
  return [...new Set(paths)].sort();
}
