import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
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

/**
 * git apply runs against an empty repository of the harness's own (GIT_DIR) with the workspace as
 * its work tree, and reads no system or user config. Whatever is in the workspace — a `.git` a
 * command created, files that make its root look like a bare repository (`HEAD`, `config`,
 * `objects/`), a repository's own config — is never read as configuration: a filter, hook,
 * attributes file or fsmonitor named there cannot run. The work tree's `.gitattributes` still
 * apply (line endings), but no filter driver is defined to run.
 */
export async function runGitApply(
  workspaceRoot: string,
  scratchDir: string,
  args: readonly string[],
  patch: string,
  signal?: AbortSignal,
  /** Extra `name=value` settings of the harness's own (never the model's). */
  config: readonly string[] = [],
): Promise<GitApplyOutcome> {
  const gitDir = await emptyRepository(scratchDir);
  return new Promise((resolve, reject) => {
    const child = execFile(
      "git",
      [
        "-c",
        "core.fsmonitor=false",
        "-c",
        "safe.bareRepository=explicit",
        ...config.flatMap((setting) => ["-c", setting]),
        "apply",
        ...args,
        "-",
      ],
      {
        cwd: workspaceRoot,
        env: gitEnvironment(workspaceRoot, gitDir),
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
 * `<scratch>/git-apply.git`: HEAD, an empty object store and refs, a minimal config of its own.
 * Made once per run.
 */
async function emptyRepository(scratchDir: string): Promise<string> {
  const gitDir = path.join(scratchDir, "git-apply.git");
  if (existsSync(path.join(gitDir, "config"))) return gitDir;
  await mkdir(path.join(gitDir, "objects"), { recursive: true, mode: 0o700 });
  await mkdir(path.join(gitDir, "refs"), { recursive: true, mode: 0o700 });
  await writeFile(path.join(gitDir, "HEAD"), "ref: refs/heads/main\n", { mode: 0o600 });
  await writeFile(path.join(gitDir, "config"), "[core]\n\trepositoryformatversion = 0\n\tbare = false\n", {
    mode: 0o600,
  });
  return gitDir;
}

/**
 * No GIT_* variable of the harness leaks in; git is given its repository and work tree instead of
 * looking for one, and neither the system's nor the user's config.
 */
function gitEnvironment(workspaceRoot: string, gitDir: string): NodeJS.ProcessEnv {
  const environment: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith("GIT_")) environment[key] = value;
  }
  environment.GIT_DIR = gitDir;
  environment.GIT_WORK_TREE = workspaceRoot;
  environment.GIT_CEILING_DIRECTORIES = path.dirname(workspaceRoot);
  environment.GIT_CONFIG_NOSYSTEM = "1";
  environment.GIT_CONFIG_GLOBAL = "/dev/null";
  environment.LC_ALL = "C";
  return environment;
}
