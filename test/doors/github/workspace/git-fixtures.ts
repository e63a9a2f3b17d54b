import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";

/** Plain git for setting up fixtures, with an identity and no host config. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=Fixture", "-c", "user.email=fixture@example.com", ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
  }).trim();
}

/**
 * A bare repository `name.git` under projectRoot with one commit on `main`: a README, a source
 * file and `blobBytes` of incompressible data, so a clone is visibly bigger than a fetch.
 */
export async function createRemoteRepository(
  projectRoot: string,
  name: string,
  blobBytes = 200_000,
): Promise<{ bare: string; seedSha: string }> {
  const bare = path.join(projectRoot, `${name}.git`);
  await mkdir(bare, { recursive: true });
  git(bare, "init", "--quiet", "--bare", "--initial-branch=main");
  // Serve blobless clones and a commit that no branch points at, as GitHub does.
  allowPartialClone(bare);
  const seed = await mkdtemp(path.join(projectRoot, "seed-"));
  git(seed, "init", "--quiet", "--initial-branch=main");
  await writeFile(path.join(seed, "README.md"), "# demo\n");
  await mkdir(path.join(seed, "src"));
  await writeFile(path.join(seed, "src", "add.js"), "export const add = (a, b) => a + b;\n");
  await writeFile(path.join(seed, ".gitignore"), "*.log\n");
  await writeFile(path.join(seed, "data.bin"), randomBytes(blobBytes));
  git(seed, "add", "--all");
  git(seed, "commit", "--quiet", "-m", "seed");
  git(seed, "push", "--quiet", bare, "main");
  const seedSha = git(seed, "rev-parse", "HEAD");
  await rm(seed, { recursive: true, force: true });
  return { bare, seedSha };
}

/**
 * Adds a commit on `branch` of the bare repository, as another person pushing would; `extraFiles`
 * are written in the same commit, and `startPoint` starts a branch the remote does not have yet.
 */
export async function pushCommit(
  bare: string,
  branch: string,
  file: string,
  content: string | Buffer,
  extraFiles: Readonly<Record<string, string>> = {},
  startPoint = `origin/${branch}`,
): Promise<string> {
  const scratch = await mkdtemp(`${bare}-scratch-`);
  git(scratch, "clone", "--quiet", bare, ".");
  git(scratch, "checkout", "--quiet", "-B", branch, startPoint);
  await writeFile(path.join(scratch, file), content);
  for (const [extra, text] of Object.entries(extraFiles)) await writeFile(path.join(scratch, extra), text);
  git(scratch, "add", "--all");
  git(scratch, "commit", "--quiet", "-m", `change ${file}`);
  git(scratch, "push", "--quiet", "origin", `HEAD:refs/heads/${branch}`);
  const sha = git(scratch, "rev-parse", "HEAD");
  await rm(scratch, { recursive: true, force: true });
  return sha;
}

/**
 * Lets clients of the bare repository clone without blobs and ask for objects by id, as GitHub
 * does without any setting.
 */
export function allowPartialClone(bare: string): void {
  git(bare, "config", "uploadpack.allowFilter", "true");
  git(bare, "config", "uploadpack.allowAnySHA1InWant", "true");
}

/** Every file under root whose bytes contain one of the needles, for "never on disk" checks. */
export async function findFilesContaining(root: string, needles: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    const bytes = await readFile(file);
    if (needles.some((needle) => bytes.includes(needle))) found.push(file);
  }
  return found;
}
