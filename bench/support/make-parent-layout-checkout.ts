import { execFile } from "node:child_process";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);

/**
 * A checkout as the parent commit made it (`createRepositoryCache` before the task folders): a
 * full local copy of the mirror with `.git` inside the work tree, then the work branch checked
 * out. The same git commands, run directly, so the sandbox benches need no simple-git.
 */
export async function makeParentLayoutCheckout(options: {
  readonly mirror: string;
  readonly workspaceRoot: string;
  readonly cloneUrl: string;
  readonly sha: string;
  readonly branch: string;
}): Promise<void> {
  const environment = { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" };
  const git = (args: readonly string[]) => execFileAsync("git", args, { env: environment });
  await git([
    "clone",
    "--quiet",
    "--local",
    "--no-hardlinks",
    "--no-checkout",
    options.mirror,
    options.workspaceRoot,
  ]);
  await git(["-C", options.workspaceRoot, "remote", "set-url", "origin", options.cloneUrl]);
  await git(["-C", options.workspaceRoot, "checkout", "--quiet", "-B", options.branch, options.sha]);
}
