import { chmod, lstat, mkdir, readFile, readdir, rm, stat, symlink } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { writeFileTool } from "../../../../src/core/tools/files/write-file-tool.js";
import { writeFileAtomically } from "../../../../src/core/tools/files/write-file-atomically.js";
import { createWorkspace, initGitRepository, runTool, type Workspace } from "./workspace-fixture.js";

let workspace: Workspace;
beforeEach(async () => {
  workspace = await createWorkspace();
});
afterEach(async () => {
  await workspace.cleanup();
});

const write = (input: Record<string, unknown>) => runTool(writeFileTool, input, workspace.context);

describe("write_file", () => {
  it("creates a file with its parent directories and reports it", async () => {
    const result = await write({ path: "src/new/module.ts", content: "export {};\n" });
    expect(result.ok).toBe(true);
    expect(await readFile(path.join(workspace.root, "src/new/module.ts"), "utf8")).toBe("export {};\n");
    expect(result.artifacts).toEqual(["src/new/module.ts"]);
    expect(result.metadata).toMatchObject({ path: "src/new/module.ts", kind: "file-write", created: true });
    expect(await readdir(path.join(workspace.root, "src/new"))).toEqual(["module.ts"]);
  });

  it("overwrites atomically and keeps the file mode", async () => {
    const script = await workspace.write("run.sh", "#!/bin/sh\necho old\n");
    await chmod(script, 0o755);
    const result = await write({ path: "run.sh", content: "#!/bin/sh\necho new\n" });
    expect(result.metadata).toMatchObject({ created: false });
    expect(await readFile(script, "utf8")).toContain("echo new");
    expect((await stat(script)).mode & 0o777).toBe(0o755);
    expect(await readdir(workspace.root)).toEqual(["run.sh"]);
  });

  it("writes through an inside symlink to its target and keeps the link", async () => {
    await workspace.write("real.txt", "old");
    await symlink(path.join(workspace.root, "real.txt"), path.join(workspace.root, "link.txt"));
    const result = await write({ path: "link.txt", content: "new" });
    expect(result.artifacts).toEqual(["real.txt"]);
    expect(await readFile(path.join(workspace.root, "real.txt"), "utf8")).toBe("new");
    expect((await lstat(path.join(workspace.root, "link.txt"))).isSymbolicLink()).toBe(true);
  });

  it("refuses symlinks to outside, .. walks and .git in any form", async () => {
    await symlink(path.join(workspace.outside, "target.txt"), path.join(workspace.root, "out-link.txt"));
    await symlink(workspace.outside, path.join(workspace.root, "out-dir"));
    initGitRepository(workspace.root);
    await mkdir(path.join(workspace.root, "sub/.git/hooks"), { recursive: true });
    const cases: [string, string][] = [
      ["out-link.txt", "OUTSIDE_WORKSPACE"],
      ["out-dir/new.txt", "OUTSIDE_WORKSPACE"],
      ["../outside/x.txt", "OUTSIDE_WORKSPACE"],
      [path.join(workspace.outside, "abs.txt"), "OUTSIDE_WORKSPACE"],
      [".git/config", "PERMISSION_DENIED"],
      [".GIT/config", "PERMISSION_DENIED"],
      ["sub/.git/hooks/x", "PERMISSION_DENIED"],
    ];
    for (const [requested, errorType] of cases) {
      const result = await write({ path: requested, content: "pwned" });
      expect([requested, result.error?.error_type]).toEqual([requested, errorType]);
    }
    expect(await readdir(workspace.outside)).toEqual([]);
    expect(await readdir(path.join(workspace.root, "sub/.git/hooks"))).toEqual([]);
    expect(await readFile(path.join(workspace.root, ".git/config"), "utf8")).not.toContain("pwned");
  });

  it("refuses to replace a directory or to write below a file", async () => {
    await mkdir(path.join(workspace.root, "dir"));
    expect((await write({ path: "dir", content: "x" })).error?.error_type).toBe("IS_DIRECTORY");
    await workspace.write("file.txt", "x");
    expect((await write({ path: "file.txt/child.txt", content: "x" })).error?.error_type).toBe(
      "NOT_A_DIRECTORY",
    );
  });

  it("describes its action with the absolute path for the approval gate", () => {
    const action = writeFileTool.describeAction?.({ path: "a/b.txt", content: "" }, workspace.context);
    expect(action).toEqual({ paths: [path.join(workspace.root, "a/b.txt")] });
  });

  it("refuses a path naming a folder, and over-long names, with an error instead of a crash", async () => {
    const before = await readdir(workspace.root);
    for (const target of ["newdir/", "bdir/.", "deep/er/"]) {
      const result = await write({ path: target, content: "x" });
      expect({ target, type: result.error?.error_type }).toEqual({ target, type: "INVALID_ARGUMENTS" });
    }
    const longName = await write({ path: `${"n".repeat(300)}.txt`, content: "x" });
    expect(longName.error?.error_type).toBe("INVALID_ARGUMENTS");
    expect(longName.error?.message).toContain("255");
    const longPath = await write({
      path: Array.from({ length: 60 }, () => "d".repeat(100)).join("/"),
      content: "x",
    });
    expect(longPath.error?.error_type).toBe("INVALID_ARGUMENTS");
    expect(await readdir(workspace.root)).toEqual(before);
  });

  it("refuses to write over a read-only file and leaves it as it was", async () => {
    const file = await workspace.write("locked.txt", "keep\n");
    await chmod(file, 0o444);
    const result = await write({ path: "locked.txt", content: "changed\n" });
    expect(result.error?.error_type).toBe("PERMISSION_DENIED");
    expect(result.error?.message).toMatch(/read-only \(mode 0444\)/);
    expect(await readFile(file, "utf8")).toBe("keep\n");
    await chmod(file, 0o644);
    expect((await write({ path: "locked.txt", content: "changed\n" })).ok).toBe(true);
  });

  it("writes nothing outside when a folder on the path became a link after the path was resolved", async () => {
    await mkdir(path.join(workspace.root, "sub"));
    const target = { absolute: path.join(workspace.root, "sub", "new.txt"), relative: "sub/new.txt" };
    await rm(path.join(workspace.root, "sub"), { recursive: true });
    await symlink(workspace.outside, path.join(workspace.root, "sub"));
    const refused = await writeFileAtomically(target, "payload\n");
    expect(refused?.error?.error_type).toBe("INVALID_ARGUMENTS");
    expect(refused?.error?.message).toMatch(/changed into a symbolic link/);
    expect(await readdir(workspace.outside)).toEqual([]);
  });
});
