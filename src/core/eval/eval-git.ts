import { execFile } from "node:child_process";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);

/**
 * Git for the harness's own bookkeeping of an eval workspace (never for the model): a fixed
 * identity and no system or global config, so a developer's hooks or signing settings cannot
 * change what is measured.
 */
export async function runEvalGit(workspace: string, args: readonly string[]): Promise<string> {
  const { stdout } = await execFileAsync(
    "git",
    [
      "-c",
      "user.name=AgentForge Eval",
      "-c",
      "user.email=eval@agentforge.invalid",
      "-c",
      "commit.gpgsign=false",
      "-c",
      "core.hooksPath=/dev/null",
      "-c",
      "init.defaultBranch=main",
      "-c",
      "core.fsmonitor=false",
      "-c",
      "submodule.recurse=false",
      "-c",
      "diff.ignoreSubmodules=all",
      ...args,
    ],
    {
      cwd: workspace,
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        GIT_CONFIG_NOSYSTEM: "1",
        GIT_CONFIG_GLOBAL: "/dev/null",
      },
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  return stdout;
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
