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
  "core/git/run-host-git.ts":
    "the host's git: an explicit git directory no sandbox can write, pinned config, an environment without secrets",
};

const SPAWNING_FUNCTIONS = new Set([
  "spawn",
  "spawnSync",
  "execFile",
  "execFileSync",
  "exec",
  "execSync",
  "fork",
]);

/**
 * Calls that start a process without naming its whole environment: `file:line` of each. A process
 * the host starts inherits the server's environment (the App's private key, the model key, the
 * webhook secret) unless an `env` is given; every spawner builds one from an allowlist.
 */
function spawnsWithoutEnvironment(relativePath: string): string[] {
  const text = readFileSync(join(ROOT, relativePath), "utf8");
  const source = ts.createSourceFile(relativePath, text, ts.ScriptTarget.Latest, true);
  const offenders: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      // `promisify(execFile)(...)` spawns as surely as `execFile(...)`.
      const promisified =
        ts.isCallExpression(callee) && callee.arguments.length === 1 && ts.isIdentifier(callee.arguments[0]!)
          ? callee.arguments[0].text
          : "";
      const name = ts.isIdentifier(callee)
        ? callee.text
        : ts.isPropertyAccessExpression(callee)
          ? callee.name.text
          : promisified;
      if (SPAWNING_FUNCTIONS.has(name)) {
        const hasEnvironment = node.arguments.some(
          (argument) =>
            ts.isObjectLiteralExpression(argument) &&
            argument.properties.some(
              (property) =>
                (ts.isPropertyAssignment(property) || ts.isShorthandPropertyAssignment(property)) &&
                property.name.getText(source) === "env",
            ),
        );
        if (!hasEnvironment) {
          const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
          offenders.push(`${relativePath}:${line + 1}`);
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return offenders;
}

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

  it("lets everything outside the core reach it only through its entry modules", () => {
    // An entry module is a file at the top of the core (agent-run.ts) or a folder's index.ts,
    // whose exports are the core's public face; the files behind them are the core's own.
    const isEntryModule = (target: string): boolean =>
      /^core\/[^/]+\.js$/.test(target) || /^core\/[^/]+\/index\.js$/.test(target);
    const deep = files
      .filter((file) => !file.path.startsWith("core/"))
      .flatMap((file) =>
        resolvedImports(file)
          .filter((target) => target.startsWith("core/") && !isEntryModule(target))
          .map((target) => `${file.path} → ${target}`),
      );
    expect(deep).toEqual([]);
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

  it("gives every process it starts an environment of its own, never the server's", () => {
    const spawners = files.filter((file) =>
      file.imports.some((name) => ["node:child_process", "child_process"].includes(name)),
    );
    expect(spawners.length).toBeGreaterThan(2);
    expect(spawners.flatMap((file) => spawnsWithoutEnvironment(file.path))).toEqual([]);
  });
});
