import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { isHostGitError } from "../../git/host-git-error.js";
import { runHostGitForExit } from "../../git/run-host-git.js";

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
 * git apply runs through the host's git runner against an empty repository of the harness's own
 * (in the run's private scratch folder) with the workspace as its work tree: no system or user
 * config, no secret in its environment. Whatever is in the workspace — a `.git` a command
 * created, files that make its root look like a bare repository (`HEAD`, `config`, `objects/`) —
 * is never read as configuration: a filter, hook, attributes file or fsmonitor named there cannot
 * run. The work tree's `.gitattributes` still apply (line endings), but no filter driver is
 * defined to run.
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
  const gitDirectory = await emptyRepository(scratchDir);
  try {
    return await runHostGitForExit({ gitDirectory, workTree: workspaceRoot }, ["apply", ...args, "-"], {
      input: patch,
      // Its messages are read by the tool: in git's own words, whatever the host's locale.
      hostEnv: { ...process.env, LC_ALL: "C" },
      timeoutMs: TIMEOUT_MS,
      maxBuffer: MAX_OUTPUT_BYTES,
      settings: config.map((setting): readonly [string, string] => {
        const equals = setting.indexOf("=");
        return [setting.slice(0, equals), setting.slice(equals + 1)];
      }),
      ...(signal ? { signal } : {}),
    });
  } catch (error) {
    if (isHostGitError(error)) throw new Error(`could not run git apply: ${error.message}`, { cause: error });
    throw error;
  }
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
