import { runWorkspaceGit } from "../sandbox/run-workspace-git.js";

/**
 * Git for the harness's own bookkeeping of an eval workspace (never for the model): a fixed
 * identity and no system or global config, so a developer's hooks or signing settings cannot
 * change what is measured, and nothing the run wrote into the workspace can start a program.
 */
export function runEvalGit(workspace: string, args: readonly string[]): Promise<string> {
  return runWorkspaceGit(workspace, args, {
    config: [
      "user.name=AgentForge Eval",
      "user.email=eval@agentforge.invalid",
      "commit.gpgsign=false",
      "init.defaultBranch=main",
    ],
  });
}

/** Copies are measured against this commit. */
export async function commitFixture(workspace: string): Promise<void> {
  await runEvalGit(workspace, ["init", "-q"]);
  await runEvalGit(workspace, ["add", "-A"]);
  await runEvalGit(workspace, ["commit", "-q", "--allow-empty", "-m", "fixture"]);
}

/**
 * Paths added, modified or deleted since the fixture commit, by git's rules (ignored files do
 * not count), sorted.
 */
export async function listChangedFiles(workspace: string): Promise<string[]> {
  const output = await runEvalGit(workspace, [
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
