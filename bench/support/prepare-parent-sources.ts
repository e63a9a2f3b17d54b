import { execFile, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { access, mkdir, mkdtemp, readFile, readdir, rename, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);

/**
 * The commit before the task-folder layout (553a408): `.git` inside the work tree, the sandbox's
 * `.git` re-binds, simple-git on the host. The layout benches import its sources beside main's.
 */
export const PARENT_COMMIT = "4ac68f8";
/** Bump when the way the folder is built changes, so an old one is not reused. */
const BUILD_VERSION = 1;

export type ParentSources =
  | {
      readonly available: true;
      readonly commit: string;
      readonly root: string;
      /** Why simple-git could not be installed, or undefined when it was. */
      readonly simpleGitProblem: string | undefined;
      readonly simpleGitVersion: string | undefined;
    }
  | { readonly available: false; readonly reason: string };

async function exists(target: string): Promise<boolean> {
  try {
    await access(target);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}

/** `git archive COMMIT src package-lock.json | tar -x -C directory`, without a shell. */
function extractSources(projectDir: string, commit: string, directory: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const archive = spawn("git", ["archive", "--format=tar", commit, "src", "package-lock.json"], {
      cwd: projectDir,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const untar = spawn("tar", ["-x", "-C", directory], { stdio: ["pipe", "ignore", "pipe"] });
    archive.stdout.pipe(untar.stdin);
    let errors = "";
    archive.stderr.on("data", (chunk: Buffer) => (errors += chunk.toString()));
    untar.stderr.on("data", (chunk: Buffer) => (errors += chunk.toString()));
    let pending = 2;
    const settle = (code: number | null): void => {
      if (code !== 0) reject(new Error(`git archive | tar failed: ${errors.trim()}`));
      else if (--pending === 0) resolve();
    };
    archive.on("error", reject);
    untar.on("error", reject);
    archive.on("close", settle);
    untar.on("close", settle);
  });
}

/**
 * The parent's sources resolve bare imports from `root/node_modules`: a link to each of this
 * project's packages (the same modules main uses), plus simple-git, which main no longer depends
 * on, in a folder of its own so npm never sees the links.
 */
async function linkProjectPackages(projectDir: string, root: string): Promise<void> {
  const source = path.join(projectDir, "node_modules");
  const target = path.join(root, "node_modules");
  await mkdir(target, { recursive: true });
  for (const name of await readdir(source)) {
    if (name.startsWith(".") || (await exists(path.join(target, name)))) continue;
    await symlink(path.join(source, name), path.join(target, name));
  }
}

async function simpleGitVersionOf(root: string): Promise<string | undefined> {
  const lock = JSON.parse(await readFile(path.join(root, "package-lock.json"), "utf8")) as {
    packages?: Record<string, { version?: string }>;
  };
  return lock.packages?.["node_modules/simple-git"]?.version;
}

/** Installs the parent's pinned simple-git with npm (from its cache when it can); returns a problem or undefined. */
async function ensureSimpleGit(root: string, version: string | undefined): Promise<string | undefined> {
  if (version === undefined) return `the parent's package-lock.json pins no simple-git`;
  const linked = path.join(root, "node_modules", "simple-git");
  if (await exists(path.join(linked, "package.json"))) return undefined;
  const prefix = path.join(root, "simple-git-install");
  await mkdir(prefix, { recursive: true });
  try {
    await execFileAsync(
      "npm",
      [
        "install",
        "--prefix",
        prefix,
        "--prefer-offline",
        "--no-save",
        "--no-package-lock",
        "--ignore-scripts",
        "--no-audit",
        "--no-fund",
        `simple-git@${version}`,
      ],
      { cwd: prefix, timeout: 120_000 },
    );
  } catch (error) {
    const message = error instanceof Error ? error.message.split("\n").slice(0, 3).join(" ") : String(error);
    return `npm could not install simple-git@${version}: ${message}`;
  }
  await symlink(path.join(prefix, "node_modules", "simple-git"), linked);
  return undefined;
}

/**
 * The parent commit's `src/` in a folder of its own, importable with tsx beside main's. Nothing is
 * committed: the folder is made from git's object store with `git archive` and cached under the
 * system temp folder, keyed by commit and project folder. Unavailable (with the reason) when the
 * clone does not hold the commit, e.g. a shallow clone.
 */
export async function prepareParentSources(
  projectDir: string,
  options: { readonly needsSimpleGit: boolean },
): Promise<ParentSources> {
  let commit: string;
  try {
    const { stdout } = await execFileAsync(
      "git",
      ["rev-parse", "--verify", "--quiet", `${PARENT_COMMIT}^{commit}`],
      { cwd: projectDir },
    );
    commit = stdout.trim();
  } catch (error) {
    const detail = error instanceof Error ? error.message.split("\n")[0] : String(error);
    return {
      available: false,
      reason: `commit ${PARENT_COMMIT} is not in this clone (shallow? run git fetch --unshallow): ${detail}`,
    };
  }
  const key = createHash("sha256")
    .update(`${commit}\0${path.resolve(projectDir)}\0v${BUILD_VERSION}`)
    .digest("hex")
    .slice(0, 12);
  const root = path.join(os.tmpdir(), `agentforge-bench-parent-${key}`);
  if (!(await exists(path.join(root, "src")))) {
    const partial = await mkdtemp(path.join(os.tmpdir(), "agentforge-bench-parent-partial-"));
    try {
      await extractSources(projectDir, commit, partial);
      await linkProjectPackages(projectDir, partial);
      // The sources are ES modules, as in the project; without this, tsx would load them as CommonJS.
      await writeFile(
        path.join(partial, "package.json"),
        `${JSON.stringify({ type: "module", private: true })}\n`,
      );
      await writeFile(path.join(partial, "commit"), `${commit}\n`);
      await rm(root, { recursive: true, force: true });
      await rename(partial, root);
    } catch (error) {
      await rm(partial, { recursive: true, force: true });
      throw error;
    }
  }
  const version = await simpleGitVersionOf(root);
  const simpleGitProblem = options.needsSimpleGit ? await ensureSimpleGit(root, version) : "not asked for";
  return { available: true, commit, root, simpleGitProblem, simpleGitVersion: version };
}

/** Imports one of the parent's modules, e.g. `src/core/sandbox/create-sandbox-runner.ts`. */
export async function importParentModule<Module>(
  sources: { readonly root: string },
  relativePath: string,
): Promise<Module> {
  return (await import(pathToFileURL(path.join(sources.root, relativePath)).href)) as Module;
}
