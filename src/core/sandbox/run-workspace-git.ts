import { execFile } from "node:child_process";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);

export interface WorkspaceGitOptions {
  /** More `name=value` settings, e.g. an identity for commits. */
  readonly config?: readonly string[];
  readonly maxBuffer?: number;
}

/**
 * The host's git over a checkout that sandboxed commands have written. No system or global config
 * applies, and nothing the checkout configures may start a program: no hooks, no file-system
 * monitor, no stepping into submodules or nested repositories (their config is the sandbox's).
 */
export async function runWorkspaceGit(
  workspace: string,
  args: readonly string[],
  options: WorkspaceGitOptions = {},
): Promise<string> {
  const settings = [
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "submodule.recurse=false",
    "diff.ignoreSubmodules=all",
    `safe.directory=${workspace}`,
    ...(options.config ?? []),
  ];
  const { stdout } = await execFileAsync(
    "git",
    [...settings.flatMap((setting) => ["-c", setting]), ...args],
    {
      cwd: workspace,
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        GIT_CONFIG_NOSYSTEM: "1",
        GIT_CONFIG_GLOBAL: "/dev/null",
      },
      maxBuffer: options.maxBuffer ?? 16 * 1024 * 1024,
    },
  );
  return stdout;
}
