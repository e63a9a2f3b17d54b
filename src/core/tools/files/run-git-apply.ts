import { execFile } from "node:child_process";
import path from "node:path";

/**
 * The one process the file tools start. Only src/core/sandbox runs *shell commands*; this is not
 * one: the harness itself runs `git apply` with fixed arguments on a patch whose every path it
 * has already confined to the workspace, passing the patch on stdin (never a path or a flag
 * the model chose). `git apply` is used because it checks every hunk of every file before it
 * writes anything, which makes a patch all-or-nothing.
 */
export interface GitApplyOutcome {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

const TIMEOUT_MS = 30_000;
const MAX_OUTPUT_BYTES = 10 * 1024 * 1024;

export function runGitApply(
  workspaceRoot: string,
  args: readonly string[],
  patch: string,
  signal?: AbortSignal,
  /** Extra `name=value` settings of the harness's own (never the model's). */
  config: readonly string[] = [],
): Promise<GitApplyOutcome> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      "git",
      // fsmonitor is a configurable command git could start; it has no business here.
      ["-c", "core.fsmonitor=false", ...config.flatMap((setting) => ["-c", setting]), "apply", ...args, "-"],
      {
        cwd: workspaceRoot,
        env: gitEnvironment(workspaceRoot),
        timeout: TIMEOUT_MS,
        maxBuffer: MAX_OUTPUT_BYTES,
        encoding: "utf8",
        ...(signal ? { signal } : {}),
      },
      (error, stdout, stderr) => {
        if (error === null) {
          resolve({ exitCode: 0, stdout, stderr });
        } else if (typeof error.code === "number") {
          resolve({ exitCode: error.code, stdout, stderr });
        } else {
          reject(new Error(`could not run git apply: ${error.message}`, { cause: error }));
        }
      },
    );
    child.stdin?.end(patch);
  });
}

/**
 * No GIT_* variable of the harness leaks in (GIT_DIR would point git at another repository), and
 * git may not look for a repository above the workspace: in a workspace nested in someone else's
 * checkout, paths would otherwise be taken relative to that checkout's top.
 */
function gitEnvironment(workspaceRoot: string): NodeJS.ProcessEnv {
  const environment: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith("GIT_")) environment[key] = value;
  }
  environment.GIT_CEILING_DIRECTORIES = path.dirname(workspaceRoot);
  environment.LC_ALL = "C";
  return environment;
}
