import { describe, expect, it } from "@jest/globals";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve, dirname, sep } from "node:path";
import ts from "typescript";

/**
 * Keeps the arrows pointing inward, read from the imports themselves (TypeScript's own
 * pre-processor, not a regular expression): the core knows nothing of its doors or of GitHub;
 * each door's platform package stays in that door; only named places start processes.
 */
const ROOT = resolve("src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith(".ts") ? [path] : [];
  });
}

const files = sourceFiles(ROOT).map((path) => ({
  path: relative(ROOT, path).split(sep).join("/"),
  imports: ts
    .preProcessFile(readFileSync(path, "utf8"), true, true)
    .importedFiles.map((file) => file.fileName),
}));

function resolvedImports(file: { path: string; imports: string[] }): string[] {
  return file.imports
    .filter((name) => name.startsWith("."))
    .map((name) =>
      relative(ROOT, resolve(ROOT, dirname(file.path), name))
        .split(sep)
        .join("/"),
    );
}

/** Places allowed to start processes, and why. */
const PROCESS_SPAWNERS: Record<string, string> = {
  "core/sandbox/": "runs every shell command",
  "core/tools/files/run-git-apply.ts":
    "apply_patch checks and applies with git apply, on the host, on validated paths",
  "core/skills/read-instructions-from-git-ref.ts": "reads AGENTS.md from a trusted ref with git plumbing",
  "core/runtime/run-doctor-checks.ts": "doctor probes git even when the sandbox is broken",
  "core/eval/": "eval prepares fixture repositories with git",
  "doors/github/workspace/": "clones, fetches and pushes with the token kept out of the sandbox",
  "doors/github/review/": "diffs the checkout with git",
};

describe("architecture", () => {
  it("finds the sources", () => {
    expect(files.length).toBeGreaterThan(100);
  });

  it("keeps the core free of doors, GitHub and the Actions runtime", () => {
    const offenders = files
      .filter((file) => file.path.startsWith("core/"))
      .flatMap((file) => [
        ...resolvedImports(file)
          .filter((target) => target.startsWith("doors/"))
          .map((target) => `${file.path} → ${target}`),
        ...file.imports
          .filter((name) => /^(probot|@octokit\/|@actions\/)/.test(name))
          .map((name) => `${file.path} → ${name}`),
      ]);
    expect(offenders).toEqual([]);
  });

  it("lets only the App door import probot and only the Action door import @actions/*", () => {
    const offenders = files.flatMap((file) =>
      file.imports
        .filter(
          (name) =>
            (name === "probot" && !file.path.startsWith("doors/github-app/")) ||
            (name.startsWith("@actions/") && !file.path.startsWith("doors/action/")),
        )
        .map((name) => `${file.path} → ${name}`),
    );
    expect(offenders).toEqual([]);
  });

  it("keeps doors from importing each other; what they share lives in doors/github", () => {
    // The CLI is the process entry: `agentforge serve` starts the App door through its one entry point.
    const entryPoints = new Set(["doors/github-app/start-app-server.js"]);
    const doorOf = (path: string) => path.split("/")[1];
    const offenders = files
      .filter((file) => file.path.startsWith("doors/"))
      .flatMap((file) =>
        resolvedImports(file)
          .filter(
            (target) =>
              target.startsWith("doors/") &&
              doorOf(target) !== doorOf(file.path) &&
              doorOf(target) !== "github",
          )
          .filter((target) => !(doorOf(file.path) === "cli" && entryPoints.has(target)))
          .map((target) => `${file.path} → ${target}`),
      );
    expect(offenders).toEqual([]);
  });

  it("starts processes only in the named places", () => {
    const spawners = files.filter((file) =>
      file.imports.some((name) =>
        ["node:child_process", "child_process", "simple-git", "cross-spawn", "execa"].includes(name),
      ),
    );
    const offenders = spawners
      .map((file) => file.path)
      .filter((path) => !Object.keys(PROCESS_SPAWNERS).some((allowed) => path.startsWith(allowed)));
    expect(offenders).toEqual([]);
    expect(spawners.some((file) => file.path.startsWith("core/sandbox/"))).toBe(true);
  });
});
