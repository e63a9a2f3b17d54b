import { execFile, spawn } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);

export interface ProjectRepository {
  readonly bareDir: string;
  readonly files: number;
}

function untarCommit(projectDir: string, commit: string, directory: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const archive = spawn("git", ["archive", "--format=tar", commit], {
      cwd: projectDir,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const untar = spawn("tar", ["-x", "-C", directory], { stdio: ["pipe", "ignore", "pipe"] });
    archive.stdout.pipe(untar.stdin);
    let errors = "";
    for (const child of [archive, untar]) {
      child.stderr.on("data", (chunk: Buffer) => (errors += chunk.toString()));
      child.on("error", reject);
    }
    let pending = 2;
    const settle = (code: number | null): void => {
      if (code !== 0) reject(new Error(`git archive | tar failed: ${errors.trim()}`));
      else if (--pending === 0) resolve();
    };
    archive.on("close", settle);
    untar.on("close", settle);
  });
}

async function countFiles(directory: string): Promise<number> {
  const entries = await readdir(directory, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile()).length;
}

/**
 * A repository of ordinary size: this project's own files at `commit` (about 650 files, 13 MB),
 * committed once into a bare repository under `parent`. Seconds to build, so it is not cached.
 */
export async function buildProjectRepository(
  projectDir: string,
  commit: string,
  parent: string,
): Promise<ProjectRepository> {
  const folder = await mkdtemp(path.join(parent, "project-repository-"));
  const files = path.join(folder, "files");
  const bareDir = path.join(folder, "project.git");
  await mkdir(files);
  await untarCommit(projectDir, commit, files);
  const environment = {
    ...process.env,
    GIT_DIR: bareDir,
    GIT_WORK_TREE: files,
    GIT_INDEX_FILE: path.join(folder, "index"),
    GIT_AUTHOR_NAME: "Bench",
    GIT_AUTHOR_EMAIL: "bench@example.invalid",
    GIT_COMMITTER_NAME: "Bench",
    GIT_COMMITTER_EMAIL: "bench@example.invalid",
    GIT_AUTHOR_DATE: "2026-01-01T12:00:00Z",
    GIT_COMMITTER_DATE: "2026-01-01T12:00:00Z",
  };
  await execFileAsync("git", ["init", "--quiet", "--bare", "--initial-branch=main", bareDir]);
  await execFileAsync("git", ["add", "--all", "--force", "."], { env: environment, cwd: files });
  await execFileAsync("git", ["commit", "--quiet", "--no-verify", "-m", "Project files"], {
    env: environment,
    cwd: files,
  });
  const count = await countFiles(files);
  await rm(files, { recursive: true, force: true });
  await rm(path.join(folder, "index"), { force: true });
  return { bareDir, files: count };
}
