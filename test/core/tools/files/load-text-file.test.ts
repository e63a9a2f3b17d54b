import { execFileSync } from "node:child_process";
import { rm, symlink, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { loadTextFile } from "../../../../src/core/tools/files/load-text-file.js";
import { createWorkspace, type Workspace } from "./workspace-fixture.js";

let workspace: Workspace;
beforeEach(async () => {
  workspace = await createWorkspace();
});
afterEach(async () => {
  await workspace.cleanup();
});

/** What a tool holds after resolving a path: the checks passed, then the entry may change. */
const resolvedAs = (relative: string) => ({ absolute: path.join(workspace.root, relative), relative });

describe("loadTextFile", () => {
  it("does not follow a symlink put at an already resolved path (a swap after the check)", async () => {
    const secret = path.join(workspace.outside, "secret.txt");
    await writeFile(secret, "outside the workspace\n");
    await symlink(secret, path.join(workspace.root, "swapped.txt"));
    const loaded = await loadTextFile(workspace.root, resolvedAs("swapped.txt"));
    expect(loaded.success).toBe(false);
    if (loaded.success) return;
    expect(loaded.error.error?.error_type).toBe("INVALID_ARGUMENTS");
    expect(loaded.error.error?.message).toMatch(/changed into a symbolic link/);
    expect(JSON.stringify(loaded.error)).not.toContain("outside the workspace");
  });

  it("refuses a file reached through a folder swapped for a link after the path was resolved", async () => {
    await workspace.write("sub/secret.txt", "inside\n");
    await writeFile(path.join(workspace.outside, "secret.txt"), "outside the workspace\n");
    const target = resolvedAs("sub/secret.txt");
    // The swap: the folder becomes a link to a folder outside that holds a file of the same name.
    await rm(path.join(workspace.root, "sub"), { recursive: true });
    await symlink(workspace.outside, path.join(workspace.root, "sub"));
    const loaded = await loadTextFile(workspace.root, target);
    expect(loaded.success).toBe(false);
    if (loaded.success) return;
    expect(JSON.stringify(loaded.error)).not.toContain("outside the workspace");
    expect(loaded.error.error?.message).toMatch(/symbolic link/);
  });

  it("refuses a FIFO put at a resolved path at once instead of waiting for a writer", async () => {
    execFileSync("mkfifo", [path.join(workspace.root, "pipe")]);
    const loaded = await loadTextFile(workspace.root, resolvedAs("pipe"));
    expect(loaded.success).toBe(false);
    if (loaded.success) return;
    expect(loaded.missing).toBe(false);
    expect(loaded.error.error?.message).toMatch(/not a regular file/);
  });

  it("refuses a socket as not a regular file instead of failing", async () => {
    const socketPath = path.join(workspace.root, "app.sock");
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    try {
      const loaded = await loadTextFile(workspace.root, resolvedAs("app.sock"));
      expect(loaded.success).toBe(false);
      if (loaded.success) return;
      expect(loaded.error.error?.message).toMatch(/not a regular file/);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("reads small and large files whole, multi-byte characters included", async () => {
    const line = "é→ total = sum(rows) // ünïcode\n";
    const small = line.repeat(10);
    const large = line.repeat(20_000); // ~700 KB: read without blocking the process
    await workspace.write("small.txt", small);
    await workspace.write("large.txt", large);
    for (const [name, text] of [
      ["small.txt", small],
      ["large.txt", large],
    ] as const) {
      const loaded = await loadTextFile(workspace.root, resolvedAs(name));
      expect(loaded.success).toBe(true);
      if (!loaded.success) return;
      expect(loaded.value.text).toBe(text);
      expect(loaded.value.bytes).toBe(Buffer.byteLength(text));
      expect(loaded.value.isUtf8).toBe(true);
    }
  });

  it("refuses a file over the limit, and a missing one as missing", async () => {
    await workspace.write("big.txt", "x".repeat(2000));
    const tooBig = await loadTextFile(workspace.root, resolvedAs("big.txt"), 1000);
    expect(tooBig.success).toBe(false);
    if (!tooBig.success) expect(tooBig.error.error?.message).toMatch(/2000|too large|limit/i);
    const missing = await loadTextFile(workspace.root, resolvedAs("nope.txt"));
    expect(missing).toMatchObject({ success: false, missing: true });
  });
});
