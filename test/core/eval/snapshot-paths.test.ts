import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { snapshotPath } from "../../../src/core/eval/snapshot-paths.js";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), "agentforge-eval-snapshot-"));
  mkdirSync(path.join(dir, "src"));
  mkdirSync(path.join(dir, ".git"));
  writeFileSync(path.join(dir, "src", "a.js"), "a");
  writeFileSync(path.join(dir, ".git", "config"), "[core]\n");
  symlinkSync("a.js", path.join(dir, "src", "link.js"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("snapshotPath", () => {
  it("digests every file of a folder, links by target, and is null for a missing path", async () => {
    const before = await snapshotPath(dir, "src");
    expect(Object.keys(before ?? {})).toEqual(["src", "src/a.js", "src/link.js"]);
    expect(before?.["src/link.js"]).toBe("link:a.js");
    writeFileSync(path.join(dir, "src", "a.js"), "b");
    const after = await snapshotPath(dir, "src");
    expect(after?.["src/a.js"]).not.toBe(before?.["src/a.js"]);
    expect(await snapshotPath(dir, "missing")).toBeNull();
  });

  it("leaves .git out of a folder's snapshot but digests it when named", async () => {
    expect(Object.keys((await snapshotPath(dir, ".")) ?? {})).toEqual([
      ".",
      "src",
      "src/a.js",
      "src/link.js",
    ]);
    expect(Object.keys((await snapshotPath(dir, ".git")) ?? {})).toEqual([".git", ".git/config"]);
  });
});
