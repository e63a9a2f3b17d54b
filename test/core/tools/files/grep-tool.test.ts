import { execFileSync } from "node:child_process";
import { symlink, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { searchFiles } from "../../../../src/core/tools/files/search-files.js";
import { grepTool } from "../../../../src/core/tools/files/grep-tool.js";
import { createWorkspace, initGitRepository, runTool, type Workspace } from "./workspace-fixture.js";

let workspace: Workspace;
beforeEach(async () => {
  workspace = await createWorkspace();
  initGitRepository(workspace.root);
  await workspace.write(".gitignore", "dist/\n");
  await workspace.write("src/b.ts", "const b = 1;\nexport function beta() {}\n");
  await workspace.write("src/a.ts", "export function alpha() {}\nconst x = 2;\r\nexport const A = 1;\n");
  await workspace.write("dist/a.js", "export function compiled() {}\n");
  await workspace.write("node_modules/dep/index.js", "export function dependency() {}\n");
  await workspace.write("logo.bin", Buffer.from([0, 1, 2, 3, 0x65, 0x78, 0x70, 0x6f, 0x72, 0x74, 0, 0]));
});
afterEach(async () => {
  await workspace.cleanup();
});

const grep = (input: Record<string, unknown>) => runTool(grepTool, input, workspace.context);

describe("grep", () => {
  it("returns path:line:text sorted, skipping ignored, node_modules and binary files", async () => {
    const result = await grep({ pattern: "export function \\w+" });
    expect(result.output.split("\n")).toEqual([
      "src/a.ts:1:export function alpha() {}",
      "src/b.ts:2:export function beta() {}",
    ]);
    expect(result.metadata).toMatchObject({ matches: 2, filesMatched: 2, truncated: false });
  });

  it("searches inside an ignored directory when it is the path asked for", async () => {
    await workspace.write(".gitignore", "dist/\nnode_modules/\n");
    expect((await grep({ pattern: "compiled", path: "dist" })).output).toBe(
      "dist/a.js:1:export function compiled() {}",
    );
    expect((await grep({ pattern: "dependency", path: "node_modules/dep" })).metadata).toMatchObject({
      matches: 1,
    });
    expect((await grep({ pattern: "compiled" })).metadata).toMatchObject({ matches: 0 });
  });

  it("searches node_modules or a file when asked explicitly", async () => {
    expect((await grep({ pattern: "dependency", path: "node_modules" })).output).toContain(
      "node_modules/dep/index.js:1:",
    );
    expect((await grep({ pattern: "compiled", path: "dist/a.js" })).output).toBe(
      "dist/a.js:1:export function compiled() {}",
    );
  });

  it("filters by glob, ignores case on request and matches line ends in CRLF files", async () => {
    expect((await grep({ pattern: "EXPORT", glob: "b.ts", case_insensitive: true })).output).toBe(
      "src/b.ts:2:export function beta() {}",
    );
    expect((await grep({ pattern: "EXPORT" })).metadata).toMatchObject({ matches: 0 });
    expect((await grep({ pattern: "= 2;$" })).output).toBe("src/a.ts:2:const x = 2;");
    expect((await grep({ pattern: "^const", glob: "src/**/*.ts" })).metadata).toMatchObject({ matches: 2 });
  });

  it("refuses a lookahead by name instead of running a backtracking engine", async () => {
    const result = await grep({ pattern: "\\{\\}(?!\\s)" });
    expect(result.error?.error_type).toBe("INVALID_ARGUMENTS");
    expect(result.recovery_hint).toContain("RE2 syntax");
  });

  it("shows context lines and caps results", async () => {
    const withContext = await grep({ pattern: "const x", context: 1 });
    expect(withContext.output.split("\n")).toEqual([
      "src/a.ts-1-export function alpha() {}",
      "src/a.ts:2:const x = 2;",
      "src/a.ts-3-export const A = 1;",
    ]);
    const twoFiles = await grep({ pattern: "^const", context: 1 });
    expect(twoFiles.output.split("\n")).toContain("--");
    const capped = await grep({ pattern: "export", max_results: 1 });
    expect(capped.output.split("\n")[0]).toBe("src/a.ts:1:export function alpha() {}");
    expect(capped.metadata).toMatchObject({ matches: 3, truncated: true });
    expect(capped.output).toContain("showing 1 of 3");
  });

  it("rejects an invalid regex quoting the error, and says what RE2 does not have", async () => {
    const bad = await grep({ pattern: "foo(" });
    expect(bad.error?.error_type).toBe("INVALID_ARGUMENTS");
    expect(bad.error?.message).toContain("missing closing )");
    const lookbehind = await grep({ pattern: "(?<=a)b" });
    expect(lookbehind.error?.error_type).toBe("INVALID_ARGUMENTS");
    expect(lookbehind.recovery_hint).toContain("lookarounds");
  });

  it("answers patterns that backtrack exponentially or quadratically, on long lines, in linear time", async () => {
    // One 1.5 M-character line (a minified bundle), and short lines that defeat backtracking.
    await workspace.write("dist/bundle.js", `${"a".repeat(1_500_000)}\n`);
    await workspace.write("src/digits.txt", `${"1".repeat(40)}!\n${"a".repeat(60)}!\nend aax\n`);
    for (const pattern of ["(a|aa)+$", "(a+)+$", "(\\w|\\d)+$", "(a+){10}$", "\\w*x", "\\w+Handler"]) {
      const result = await grep({ pattern });
      expect({ pattern, ok: result.ok }).toEqual({ pattern, ok: true });
    }
    const found = await grep({ pattern: "\\w*x" });
    expect(found.output).toContain("src/digits.txt:3:end aax");
    expect(found.output).not.toContain("dist/bundle.js");
    // RE2 has Unicode classes.
    await workspace.write("src/names.txt", "Zoë\n");
    expect((await grep({ pattern: "^\\p{L}+$", path: "src/names.txt" })).output).toContain("Zoë");
  }, 60_000);

  it("finds every match in a tree of many files", async () => {
    await Promise.all(
      Array.from({ length: 600 }, (_, index) =>
        workspace.write(
          `gen/d${index % 20}/f${index}.ts`,
          `// file ${index}\n${index % 3 === 0 ? "const needle = 1;\n" : ""}`,
        ),
      ),
    );
    const result = await grep({ pattern: "needle", path: "gen", max_results: 1000 });
    expect(result.metadata).toMatchObject({ matches: 200, filesMatched: 200, filesSearched: 600 });
  });

  it("refuses a glob that leaves the searched directory, as glob does, instead of finding nothing", async () => {
    for (const pattern of ["../**", "../*.ts", "/etc/*", "src/../../x"]) {
      const result = await grep({ pattern: "a", glob: pattern });
      expect(result.error?.error_type).toBe("OUTSIDE_WORKSPACE");
      expect(result.error?.message).toContain(pattern);
    }
  });

  it("does not search git's own files when asked to, saying why", async () => {
    const result = await grep({ pattern: "ref", path: ".git" });
    expect(result.error?.error_type).toBe("INVALID_ARGUMENTS");
    expect(result.error?.message).toMatch(/inside \.git/);
  });

  it("answers at once for a FIFO or a socket, named or found in a folder, instead of blocking on it", async () => {
    execFileSync("mkfifo", [path.join(workspace.root, "src", "pipe")]);
    const server = createServer();
    await new Promise<void>((resolve) =>
      server.listen(path.join(workspace.root, "src", "app.sock"), resolve),
    );
    try {
      const named = await grep({ pattern: "x", path: "src/pipe" });
      expect(named.ok).toBe(true);
      expect(named.output).not.toContain("pipe:");
      const inFolder = await grep({ pattern: "alpha", path: "src" });
      expect(inFolder.output).toContain("src/a.ts:1:export function alpha() {}");
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("never reads through a symlink handed to the search, even one swapped in after the walk", async () => {
    await writeFile(path.join(workspace.outside, "secret.txt"), "TOPSECRET outside\n");
    await symlink(path.join(workspace.outside, "secret.txt"), path.join(workspace.root, "swapped.txt"));
    const summary = await searchFiles(
      [{ relative: "swapped.txt", absolute: path.join(workspace.root, "swapped.txt") }],
      {
        regex: { test: (line) => line.includes("TOPSECRET") },
        prefilter: undefined,
        maxMatchesPerFile: 10,
        contextLines: 0,
      },
    );
    expect(summary.files).toEqual([]);
  });
});
