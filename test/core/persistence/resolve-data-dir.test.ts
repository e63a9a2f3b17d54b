import { describe, expect, it } from "@jest/globals";
import { chmod, mkdir, stat, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { ensurePrivateDir, resolveDataDir } from "../../../src/core/persistence/resolve-data-dir.js";
import { PersistenceError } from "../../../src/core/persistence/persistence-error.js";
import { withTempDir } from "./persistence-test-helpers.js";

const isPosix = process.platform !== "win32";

describe("resolveDataDir", () => {
  it("uses AGENTFORGE_DATA_DIR, made absolute", () => {
    expect(resolveDataDir({ AGENTFORGE_DATA_DIR: "/srv/agentforge" })).toBe("/srv/agentforge");
    expect(resolveDataDir({ AGENTFORGE_DATA_DIR: "rel/dir" })).toBe(resolve("rel/dir"));
  });
  it("falls back to the platform data directory", () => {
    const dir = resolveDataDir({});
    expect(dir).toMatch(/agentforge$/);
    expect(resolveDataDir({ AGENTFORGE_DATA_DIR: "  " })).toBe(dir);
  });
});

describe("ensurePrivateDir", () => {
  it("creates nested directories with mode 0700", async () => {
    await withTempDir(async (root) => {
      const target = join(root, "a", "b", "c");
      await ensurePrivateDir(target);
      const info = await stat(target);
      expect(info.isDirectory()).toBe(true);
      if (isPosix) expect(info.mode & 0o777).toBe(0o700);
    });
  });
  it("tightens an existing directory of ours to 0700", async () => {
    await withTempDir(async (root) => {
      const target = join(root, "loose");
      await mkdir(target);
      await chmod(target, 0o755);
      await ensurePrivateDir(target);
      if (isPosix) expect((await stat(target)).mode & 0o777).toBe(0o700);
    });
  });
  it("refuses a path that is a file", async () => {
    await withTempDir(async (root) => {
      const target = join(root, "file");
      await writeFile(target, "x");
      await expect(ensurePrivateDir(target)).rejects.toBeInstanceOf(PersistenceError);
    });
  });
});
