import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { runHostGit } from "../../../src/core/git/run-host-git.js";
import { settleWorkspaceIndex } from "../../../src/core/git/settle-workspace-index.js";
import { gitIn } from "../../support/git-in.js";

/** Entries whose file time is not older than the index: git must read them again on every status. */
async function racilyCleanEntries(repository: { gitDirectory: string; workTree: string }): Promise<number> {
  const indexSecond = Math.floor(statSync(path.join(repository.gitDirectory, "index")).mtimeMs / 1000);
  const { stdout } = await runHostGit(repository, ["ls-files", "--debug"]);
  return [...stdout.matchAll(/^ {2}mtime: (\d+):/gm)].filter((match) => Number(match[1]) >= indexSecond)
    .length;
}

describe("settleWorkspaceIndex", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "agentforge-settle-"));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it("leaves no entry racily clean, so git that cannot write the index need not read every file", async () => {
    const workTree = path.join(dir, "tree");
    mkdirSync(workTree);
    for (let index = 0; index < 20; index += 1)
      writeFileSync(path.join(workTree, `f${index}.txt`), `${index}\n`);
    gitIn(dir, "init", "-q", `--separate-git-dir=${path.join(dir, "git")}`, workTree);
    gitIn(workTree, "add", "-A");
    const repository = { gitDirectory: path.join(dir, "git"), workTree };
    // Written in the same second as the files: every entry is racily clean.
    expect(await racilyCleanEntries(repository)).toBeGreaterThan(0);
    await settleWorkspaceIndex(repository);
    expect(await racilyCleanEntries(repository)).toBe(0);
  });

  it("keeps a changed file changed", async () => {
    const workTree = path.join(dir, "tree");
    mkdirSync(workTree);
    writeFileSync(path.join(workTree, "a.txt"), "a\n");
    gitIn(dir, "init", "-q", `--separate-git-dir=${path.join(dir, "git")}`, workTree);
    gitIn(workTree, "add", "-A");
    writeFileSync(path.join(workTree, "a.txt"), "changed\n");
    const repository = { gitDirectory: path.join(dir, "git"), workTree };
    await settleWorkspaceIndex(repository);
    expect((await runHostGit(repository, ["status", "--porcelain"])).stdout).toContain("a.txt");
  });
});
