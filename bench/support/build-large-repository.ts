import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { lstat, mkdir, mkdtemp, readFile, readdir, rename, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);

/** Bump when the way the repository is built changes, so an old cache is not reused. */
const BUILD_VERSION = 1;
const MAX_FILE_BYTES = 1024 * 1024;
const COMMITS = 4;

export interface LargeRepository {
  /** Folder holding `large.git`; serve it as a project root. */
  readonly projectRoot: string;
  readonly bareDir: string;
  readonly files: number;
  readonly sourceBytes: number;
  readonly packBytes: number;
  readonly commits: number;
  /** 0 when the cached copy was reused. */
  readonly buildMs: number;
}

interface Manifest {
  readonly version: number;
  readonly files: number;
  readonly sourceBytes: number;
  readonly packBytes: number;
  readonly commits: number;
}

/** Regular files under `root` up to MAX_FILE_BYTES, relative paths in a stable order. */
async function listSourceFiles(root: string): Promise<{ paths: string[]; bytes: number }> {
  const paths: string[] = [];
  let bytes = 0;
  async function walk(relative: string): Promise<void> {
    const entries = await readdir(path.join(root, relative), { withFileTypes: true });
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const child = relative === "" ? entry.name : `${relative}/${entry.name}`;
      // Caches and nested repositories are not source; symlinks (.bin) would only duplicate it.
      if (entry.isDirectory() && entry.name !== ".git" && entry.name !== ".cache") await walk(child);
      else if (entry.isFile()) {
        const size = (await lstat(path.join(root, child))).size;
        if (size <= MAX_FILE_BYTES) {
          paths.push(child);
          bytes += size;
        }
      }
    }
  }
  await walk("");
  return { paths, bytes };
}

async function git(args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  const { stdout } = await execFileAsync("git", args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout.trim();
}

async function directoryBytes(directory: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(directory, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += (await stat(path.join(entry.parentPath, entry.name))).size;
  }
  return total;
}

/**
 * Builds a bare repository from real files — this project's installed dependencies, tens of
 * thousands of source files — committed in a few commits, then packed as a hosting service would
 * serve it. Building takes a minute, so the result is cached under the system temp folder, keyed by
 * the lock file and the build version; later runs reuse it in milliseconds.
 */
export async function buildLargeRepository(projectDir: string): Promise<LargeRepository> {
  const lock = await readFile(path.join(projectDir, "package-lock.json"));
  const key = createHash("sha256").update(lock).update(`v${BUILD_VERSION}`).digest("hex").slice(0, 12);
  const projectRoot = path.join(os.tmpdir(), `agentforge-bench-repository-${key}`);
  const bareDir = path.join(projectRoot, "large.git");
  const manifestPath = path.join(projectRoot, "manifest.json");
  try {
    const manifest = JSON.parse(await readFile(manifestPath, "utf8")) as Manifest;
    if (manifest.version === BUILD_VERSION) return { projectRoot, bareDir, ...manifest, buildMs: 0 };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }

  const started = performance.now();
  const sourceRoot = path.join(projectDir, "node_modules");
  const { paths, bytes } = await listSourceFiles(sourceRoot);
  // Built beside the final place and renamed, so a killed build never looks finished.
  const partial = await mkdtemp(path.join(os.tmpdir(), "agentforge-bench-repository-partial-"));
  try {
    const partialBare = path.join(partial, "large.git");
    await git(["init", "--quiet", "--bare", "--initial-branch=main", partialBare]);
    const environment = {
      GIT_DIR: partialBare,
      GIT_WORK_TREE: sourceRoot,
      GIT_INDEX_FILE: path.join(partial, "index"),
      GIT_AUTHOR_NAME: "Bench",
      GIT_AUTHOR_EMAIL: "bench@example.invalid",
      GIT_COMMITTER_NAME: "Bench",
      GIT_COMMITTER_EMAIL: "bench@example.invalid",
      GIT_LITERAL_PATHSPECS: "1",
    };
    // Grow the tree over a few commits, a slice of the dependencies at a time, so there is history.
    const perCommit = Math.ceil(paths.length / COMMITS);
    for (let commit = 0; commit < COMMITS; commit += 1) {
      const slice = paths.slice(commit * perCommit, (commit + 1) * perCommit);
      const listFile = path.join(partial, "paths");
      await writeFile(listFile, `${slice.join("\0")}\0`);
      await git(["add", "--force", `--pathspec-from-file=${listFile}`, "--pathspec-file-nul"], {
        env: environment,
      });
      const date = `2026-01-0${commit + 1}T12:00:00Z`;
      await git(["commit", "--quiet", "--no-verify", "-m", `Add dependencies, part ${commit + 1}`], {
        env: { ...environment, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date },
      });
    }
    await git(["repack", "-a", "-d", "-q"], { env: { GIT_DIR: partialBare } });
    await rm(path.join(partial, "index"), { force: true });
    await rm(path.join(partial, "paths"), { force: true });
    const manifest: Manifest = {
      version: BUILD_VERSION,
      files: paths.length,
      sourceBytes: bytes,
      packBytes: await directoryBytes(path.join(partialBare, "objects", "pack")),
      commits: COMMITS,
    };
    await writeFile(path.join(partial, "manifest.json"), JSON.stringify(manifest));
    await rm(projectRoot, { recursive: true, force: true });
    await mkdir(path.dirname(projectRoot), { recursive: true });
    await rename(partial, projectRoot);
    return { projectRoot, bareDir, ...manifest, buildMs: performance.now() - started };
  } catch (error) {
    await rm(partial, { recursive: true, force: true });
    throw error;
  }
}
