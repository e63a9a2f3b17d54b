import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { spawnSync } from "node:child_process";
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/**
 * bin/agentforge.js runs the compiled CLI (build/, which jest's global setup has just rebuilt from
 * src/) and never TypeScript. Proven where a user meets it: the bin and build/ copied into a
 * package folder whose node_modules has every dependency except tsx, and no src/ at all.
 */
const repository = path.resolve(".");

function runBin(folder: string, args: readonly string[]) {
  return spawnSync(process.execPath, [path.join(folder, "bin", "agentforge.js"), ...args], {
    cwd: folder,
    encoding: "utf8",
    env: { PATH: process.env.PATH, HOME: process.env.HOME, AGENTFORGE_CONFIG: "" },
    timeout: 30_000,
  });
}

describe("the agentforge bin", () => {
  let scratch: string;
  beforeAll(() => {
    scratch = mkdtempSync(path.join(tmpdir(), "agentforge-bin-"));
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("imports nothing but Node built-ins and the build folder", () => {
    const text = readFileSync("bin/agentforge.js", "utf8");
    const specifiers = [...text.matchAll(/\bimport\s*(?:[^"'()]*?\sfrom\s*)?["']([^"']+)["']/g)].map(
      (match) => match[1],
    );
    const urls = [...text.matchAll(/new URL\(\s*["']([^"']+)["']/g)].map((match) => match[1]);
    expect(specifiers.length).toBeGreaterThan(0);
    for (const specifier of specifiers) expect(specifier).toMatch(/^node:/);
    expect(urls.filter((url) => url !== "..")).toEqual(["../build/doors/cli/main.js"]);
    expect(text).not.toMatch(/tsx|\.ts["']/);
  });

  it("runs a build of the sources under test: one file per source file, none older than it", () => {
    const sources = readdirSync("src", { recursive: true, encoding: "utf8" }).filter((file) =>
      file.endsWith(".ts"),
    );
    const compiled = readdirSync("build", { recursive: true, encoding: "utf8" }).filter((file) =>
      file.endsWith(".js"),
    );
    expect(compiled.sort()).toEqual(sources.map((file) => file.replace(/\.ts$/, ".js")).sort());
    const stale = sources.filter(
      (file) =>
        statSync(path.join("build", file.replace(/\.ts$/, ".js"))).mtimeMs <
        statSync(path.join("src", file)).mtimeMs,
    );
    expect(stale).toEqual([]);
  });

  it("answers --help and policy check with tsx and src/ out of reach", () => {
    const folder = path.join(scratch, "package");
    mkdirSync(path.join(folder, "node_modules"), { recursive: true });
    cpSync("bin", path.join(folder, "bin"), { recursive: true });
    cpSync("build", path.join(folder, "build"), { recursive: true });
    cpSync("package.json", path.join(folder, "package.json"));
    const dependencies = readdirSync(path.join(repository, "node_modules")).filter(
      (name) => name !== "tsx" && name !== ".bin",
    );
    for (const name of dependencies)
      symlinkSync(path.join(repository, "node_modules", name), path.join(folder, "node_modules", name));
    // The copy is what the test claims: no loader to fall back on.
    const probe = spawnSync(process.execPath, ["-e", "import.meta.resolve('tsx')", "--input-type=module"], {
      cwd: folder,
      encoding: "utf8",
    });
    expect(probe.status).not.toBe(0);

    const help = runBin(folder, ["--help"]);
    expect(help.stderr).toBe("");
    expect(help.status).toBe(0);
    expect(help.stdout).toContain("Usage: agentforge");

    const check = runBin(folder, ["policy", "check", "--", "ls"]);
    expect(check.stderr).toBe("");
    expect(check.status).toBe(0);
    expect(JSON.parse(check.stdout)).toMatchObject({ decision: "approved", classification: "safe" });
  });

  it("says in one line to run npm run build when the build is missing, and exits 1", () => {
    const folder = path.join(scratch, "unbuilt");
    mkdirSync(folder);
    cpSync("bin", path.join(folder, "bin"), { recursive: true });
    const outcome = runBin(folder, ["--help"]);
    expect(outcome.status).toBe(1);
    expect(outcome.stdout).toBe("");
    expect(outcome.stderr).toBe(
      `agentforge: the compiled CLI is missing (build/doors/cli/main.js): run \`npm run build\` in ${folder}/\n`,
    );
  });
});
