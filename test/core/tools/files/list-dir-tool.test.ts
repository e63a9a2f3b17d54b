import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { listDirTool } from "../../../../src/core/tools/files/list-dir-tool.js";
import { createWorkspace, initGitRepository, runTool, type Workspace } from "./workspace-fixture.js";

let workspace: Workspace;
beforeEach(async () => {
  workspace = await createWorkspace();
});
afterEach(async () => {
  await workspace.cleanup();
});

const list = (input: Record<string, unknown>) => runTool(listDirTool, input, workspace.context);

describe("list_dir", () => {
  it("lists sorted entries, directories with a slash, honouring .gitignore and hiding .git", async () => {
    initGitRepository(workspace.root);
    await workspace.write(".gitignore", "dist/\n*.log\n");
    await workspace.write("src/b.ts", "bb");
    await workspace.write("src/a.ts", "a");
    await workspace.write("dist/out.js", "x");
    await workspace.write("debug.log", "x");
    await workspace.write("node_modules/pkg/index.js", "x");
    await workspace.write("README.md", "# hi\n");
    const result = await list({});
    expect(result.ok).toBe(true);
    const lines = result.output.split("\n");
    expect(lines[0]).toBe("./");
    expect(lines.slice(1, 4)).toEqual([".gitignore  (12 B)", "README.md  (5 B)", "src/"]);
    expect(result.output).not.toMatch(/dist|debug\.log|node_modules|\.git\//);
    expect(result.output).toContain("2 entries hidden by .gitignore");
  });

  it("descends to the requested depth with indentation", async () => {
    await workspace.write("src/core/deep/x.ts", "x");
    await workspace.write("src/core/y.ts", "y");
    const shallow = await list({ path: "src" });
    expect(shallow.output).toBe("src/\ncore/");
    const deep = await list({ path: "src", depth: 2 });
    expect(deep.output.split("\n")).toEqual(["src/", "core/", "  deep/", "  y.ts  (1 B)"]);
    const capped = await list({ path: "src", depth: 10 });
    expect(capped.output).toContain("    x.ts");
  });

  it("caps the number of entries with a note", async () => {
    await mkdir(path.join(workspace.root, "many"));
    await Promise.all(
      Array.from({ length: 520 }, (_, index) =>
        writeFile(path.join(workspace.root, "many", `f${index}.txt`), ""),
      ),
    );
    const result = await list({ path: "many" });
    expect(result.metadata).toMatchObject({ entries: 500, truncated: true });
    expect(result.output).toContain("stopped after 500 entries");
  });

  it("applies nested .gitignore files", async () => {
    await workspace.write("pkg/.gitignore", "generated.ts\n");
    await workspace.write("pkg/generated.ts", "x");
    await workspace.write("pkg/kept.ts", "x");
    const result = await list({ path: "pkg" });
    expect(result.output).toContain("kept.ts");
    expect(result.output).not.toContain("generated.ts");
  });

  it("says when the path is a file or missing", async () => {
    await workspace.write("file.txt", "x");
    expect((await list({ path: "file.txt" })).error?.error_type).toBe("NOT_A_DIRECTORY");
    expect((await list({ path: "nope" })).error?.error_type).toBe("FILE_NOT_FOUND");
    expect((await list({ path: "../outside" })).error?.error_type).toBe("OUTSIDE_WORKSPACE");
  });

  it("does not list git's own files when asked for .git, saying why", async () => {
    const result = await list({ path: ".git" });
    expect(result.error?.error_type).toBe("INVALID_ARGUMENTS");
    expect(result.error?.message).toMatch(/inside \.git/);
    expect(result.output).not.toContain("HEAD");
  });

  it("leaves out every name the write check treats as git's, so nothing listed is a .git it cannot enter", async () => {
    for (const name of [".GIT", ".git.", ".Git "])
      await mkdir(path.join(workspace.root, name, "sub"), { recursive: true });
    await writeFile(path.join(workspace.root, "visible.txt"), "x");
    const result = await list({ path: ".", depth: 2 });
    expect(result.output).toContain("visible.txt");
    expect(result.output).not.toMatch(/\.git/i);
  });
});
