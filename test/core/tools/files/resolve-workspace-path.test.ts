import { mkdir, symlink } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { resolveWorkspacePath } from "../../../../src/core/tools/files/resolve-workspace-path.js";
import { createWorkspace, type Workspace } from "./workspace-fixture.js";

let workspace: Workspace;
beforeEach(async () => {
  workspace = await createWorkspace();
});
afterEach(async () => {
  await workspace.cleanup();
});

async function errorTypeOf(requested: string, forWrite: boolean): Promise<string | undefined> {
  const result = resolveWorkspacePath(workspace.root, requested, { forWrite });
  return result.success ? undefined : result.error.error?.error_type;
}

describe("resolveWorkspacePath", () => {
  it("resolves a relative path inside the workspace, existing or not", async () => {
    await workspace.write("src/a.ts", "x");
    const existing = resolveWorkspacePath(workspace.root, "src/a.ts", { forWrite: false });
    expect(existing).toEqual({
      success: true,
      value: { absolute: path.join(workspace.root, "src/a.ts"), relative: "src/a.ts" },
    });
    const missing = resolveWorkspacePath(workspace.root, "new/dir/b.ts", { forWrite: true });
    expect(missing.success && missing.value.relative).toBe("new/dir/b.ts");
    const root = resolveWorkspacePath(workspace.root, ".", { forWrite: false });
    expect(root.success && root.value.relative).toBe(".");
  });

  it("allows .. that stays inside but refuses .. walks and absolute paths that leave", async () => {
    await workspace.write("src/a.ts", "x");
    expect(await errorTypeOf("src/../src/a.ts", false)).toBeUndefined();
    expect(await errorTypeOf("../outside/secret", false)).toBe("OUTSIDE_WORKSPACE");
    expect(await errorTypeOf("src/../../outside", true)).toBe("OUTSIDE_WORKSPACE");
    expect(await errorTypeOf("/etc/passwd", false)).toBe("OUTSIDE_WORKSPACE");
    expect(await errorTypeOf(path.join(workspace.root, "src/a.ts"), false)).toBeUndefined();
  });

  it("follows symlinks: out of the workspace is refused, inside is resolved to the target", async () => {
    await workspace.write("real/file.txt", "x");
    await symlink(workspace.outside, path.join(workspace.root, "escape"));
    await symlink(path.join(workspace.root, "real"), path.join(workspace.root, "alias"));
    expect(await errorTypeOf("escape/anything.txt", false)).toBe("OUTSIDE_WORKSPACE");
    expect(await errorTypeOf("escape/new/file.txt", true)).toBe("OUTSIDE_WORKSPACE");
    const inside = resolveWorkspacePath(workspace.root, "alias/file.txt", { forWrite: true });
    expect(inside.success && inside.value.relative).toBe("real/file.txt");
  });

  it("refuses a dangling symlink whose target would be created outside", async () => {
    await symlink(path.join(workspace.outside, "not-yet.txt"), path.join(workspace.root, "dangling.txt"));
    expect(await errorTypeOf("dangling.txt", true)).toBe("OUTSIDE_WORKSPACE");
    await symlink(path.join(workspace.root, "later.txt"), path.join(workspace.root, "inner-dangling.txt"));
    const inner = resolveWorkspacePath(workspace.root, "inner-dangling.txt", { forWrite: true });
    expect(inner.success && inner.value.relative).toBe("later.txt");
  });

  it("refuses symlink loops, saying it is a loop (for reading and writing, direct or below)", async () => {
    await symlink(path.join(workspace.root, "loop-b"), path.join(workspace.root, "loop-a"));
    await symlink(path.join(workspace.root, "loop-a"), path.join(workspace.root, "loop-b"));
    await symlink("self", path.join(workspace.root, "self"));
    for (const [requested, forWrite] of [
      ["loop-a/x", true],
      ["loop-a", false],
      ["self", true],
      ["self/deeper/file.txt", false],
    ] as const) {
      const resolved = resolveWorkspacePath(workspace.root, requested, { forWrite });
      expect(resolved.success).toBe(false);
      if (resolved.success) continue;
      expect(resolved.error.error?.error_type).toBe("INVALID_ARGUMENTS");
      expect(resolved.error.error?.message).toMatch(/loop of symbolic links/);
    }
  });

  it("still refuses a loop-free chain of links that ends outside the workspace as outside", async () => {
    await symlink(workspace.outside, path.join(workspace.root, "hop-2"));
    await symlink("hop-2", path.join(workspace.root, "hop-1"));
    expect(await errorTypeOf("hop-1/x.txt", true)).toBe("OUTSIDE_WORKSPACE");
    expect(await errorTypeOf("hop-1", false)).toBe("OUTSIDE_WORKSPACE");
  });

  it("denies writes under any .git segment, in any case, but allows reading", async () => {
    await mkdir(path.join(workspace.root, ".git"));
    for (const requested of [".git/config", ".GIT/config", "sub/.git/hooks/x", "sub/.git", "a/.Git./b"]) {
      expect(await errorTypeOf(requested, true)).toBe("PERMISSION_DENIED");
    }
    expect(await errorTypeOf(".git/config", false)).toBeUndefined();
    expect(await errorTypeOf(".github/workflows/ci.yml", true)).toBeUndefined();
    expect(await errorTypeOf("src/.gitignore", true)).toBeUndefined();
  });

  it("denies a write that reaches .git through a symlink", async () => {
    await mkdir(path.join(workspace.root, ".git/hooks"), { recursive: true });
    await symlink(path.join(workspace.root, ".git/hooks"), path.join(workspace.root, "hooks"));
    expect(await errorTypeOf("hooks/pre-commit", true)).toBe("PERMISSION_DENIED");
  });

  it("rejects null bytes as invalid arguments", async () => {
    expect(await errorTypeOf("a\0b", false)).toBe("INVALID_ARGUMENTS");
  });
});
