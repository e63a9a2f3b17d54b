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
    // The files and the index must be written within one second for the entries to be racily
    // clean; a second boundary between them (a loaded machine) spoils the setup, so it is remade.
    let repository = { gitDirectory: "", workTree: "" };
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const root = path.join(dir, `attempt-${attempt}`);
      const workTree = path.join(root, "tree");
      mkdirSync(workTree, { recursive: true });
      for (let index = 0; index < 20; index += 1)
        writeFileSync(path.join(workTree, `f${index}.txt`), `${index}\n`);
      gitIn(root, "init", "-q", `--separate-git-dir=${path.join(root, "git")}`, workTree);
      gitIn(workTree, "add", "-A");
      repository = { gitDirectory: path.join(root, "git"), workTree };
      if ((await racilyCleanEntries(repository)) > 0) break;
    }
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
