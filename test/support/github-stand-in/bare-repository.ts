import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import parseDiff from "parse-diff";

const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_NAME: "Stand-in Owner",
  GIT_AUTHOR_EMAIL: "owner@example.com",
  GIT_COMMITTER_NAME: "Stand-in Owner",
  GIT_COMMITTER_EMAIL: "owner@example.com",
};

export function git(cwd: string, args: readonly string[], input?: string): string {
  return execFileSync("git", args, {
    cwd,
    env: GIT_ENV,
    encoding: "utf8",
    input,
    stdio: ["pipe", "pipe", "pipe"],
  });
}

/** Like `git`, but a non-zero exit gives null (a ref or path that does not exist). */
export function gitOrNull(cwd: string, args: readonly string[]): string | null {
  try {
    return git(cwd, args);
  } catch (error) {
    if (typeof error === "object" && error !== null && "status" in error && typeof error.status === "number")
      return null;
    throw error;
  }
}

/** A bare repository whose default branch holds `files` in one commit. */
export function createBareRepository(
  bareDir: string,
  files: Readonly<Record<string, string>>,
  defaultBranch: string,
): void {
  const work = mkdtempSync(path.join(tmpdir(), "stand-in-seed-"));
  try {
    git(work, ["init", "-q", "-b", defaultBranch]);
    for (const [name, content] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(work, name)), { recursive: true });
      writeFileSync(path.join(work, name), content);
    }
    git(work, ["add", "--all"]);
    git(work, ["commit", "-q", "-m", "Initial commit"]);
    mkdirSync(path.dirname(bareDir), { recursive: true });
    git(path.dirname(bareDir), ["clone", "-q", "--bare", work, bareDir]);
    // http-backend serves pushes only to repositories that allow them.
    git(bareDir, ["config", "http.receivepack", "true"]);
    // As GitHub does without any setting: blobless clones, and objects asked for by id.
    git(bareDir, ["config", "uploadpack.allowFilter", "true"]);
    git(bareDir, ["config", "uploadpack.allowAnySHA1InWant", "true"]);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

export function resolveRef(bareDir: string, ref: string): string | null {
  return gitOrNull(bareDir, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`])?.trim() ?? null;
}

export function readFileAt(bareDir: string, ref: string, filePath: string): Buffer | null {
  try {
    return execFileSync("git", ["show", `${ref}:${filePath}`], {
      cwd: bareDir,
      env: GIT_ENV,
      stdio: ["pipe", "pipe", "pipe"],
    });
  } catch (error) {
    if (typeof error === "object" && error !== null && "status" in error) return null;
    throw error;
  }
}

/** Lines a review comment may sit on, per file and side, as GitHub computes them: base...head. */
export function commentableLines(
  bareDir: string,
  base: string,
  head: string,
): Map<string, { RIGHT: Set<number>; LEFT: Set<number> }> {
  const diff = git(bareDir, ["diff", "--no-color", `${base}...${head}`]);
  const files = new Map<string, { RIGHT: Set<number>; LEFT: Set<number> }>();
  for (const file of parseDiff(diff)) {
    const name = file.to && file.to !== "/dev/null" ? file.to : (file.from ?? "");
    const lines = { RIGHT: new Set<number>(), LEFT: new Set<number>() };
    for (const chunk of file.chunks)
      for (const change of chunk.changes) {
        if (change.type === "add") lines.RIGHT.add(change.ln);
        else if (change.type === "del") lines.LEFT.add(change.ln);
        else {
          lines.RIGHT.add(change.ln2);
          lines.LEFT.add(change.ln1);
        }
      }
    files.set(name, lines);
  }
  return files;
}
