import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRepositoryCache } from "../../../../src/doors/github/workspace/create-repository-cache.js";
import { createRemoteRepository, git } from "./git-fixtures.js";

/*
 * A warm checkout brings only the blobs that differ from the last complete commit and writes the
 * task's git directory without git. These tests prove the result is exactly the task's commit
 * (files added, changed and deleted since, nothing left over), that the hand-written git
 * directory is what a clone would make (origin quoted as given, remote-tracking refs, origin/HEAD,
 * annotated tags, no partial clone), and that a record naming a commit the mirror lacks falls
 * back to walking the tree.
 */
describe("a warm checkout from the task's own git directory", () => {
  let root: string;
  let bare: string;
  let cloneUrl: string;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), "agentforge-early-tree-"));
    // A path with characters a git config value must quote: spaces, quotes, `;` and `#`.
    const projectRoot = path.join(root, 'remotes with "quotes"; and #hash');
    ({ bare } = await createRemoteRepository(projectRoot, "demo", 10_000));
    cloneUrl = bare;
    const seed = path.join(root, "seed");
    git(root, "clone", "--quiet", bare, seed);
    git(seed, "tag", "-a", "-m", "first release", "v1.0");
    git(seed, "push", "--quiet", "origin", "v1.0");
  }, 60_000);

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  async function pushChanges(): Promise<string> {
    const scratch = path.join(root, "scratch");
    await rm(scratch, { recursive: true, force: true });
    git(root, "clone", "--quiet", bare, scratch);
    git(scratch, "rm", "--quiet", "README.md");
    await writeFile(path.join(scratch, "src", "add.js"), "export const add = (a, b) => b + a;\n");
    await mkdir(path.join(scratch, "docs"));
    await writeFile(path.join(scratch, "docs", "new.md"), "added after the first task\n");
    git(scratch, "add", "--all");
    git(scratch, "commit", "--quiet", "-m", "add, change and delete");
    git(scratch, "push", "--quiet", "origin", "main");
    return git(scratch, "rev-parse", "HEAD");
  }

  it("leaves exactly the task's commit, on its branch, with a clean status", async () => {
    const cache = createRepositoryCache({ cacheDir: path.join(root, "cache") });
    const request = { cloneUrl, token: "ghs_unused", ref: "main", branch: "agentforge/issue-5" };
    const cold = await cache.checkout(request);
    expect(existsSync(path.join(cold.workspaceRoot, "README.md"))).toBe(true);
    await cold.cleanup();

    const pushed = await pushChanges();
    const warm = await cache.checkout(request);
    try {
      expect(warm.cacheState).toBe("warm");
      expect(warm.headSha).toBe(pushed);
      const gitHere = (...args: string[]): string =>
        git(warm.workspaceRoot, `--git-dir=${warm.repository.gitDirectory}`, ...args);
      expect(gitHere("rev-parse", "HEAD")).toBe(pushed);
      expect(gitHere("symbolic-ref", "HEAD")).toBe("refs/heads/agentforge/issue-5");
      expect(gitHere("status", "--porcelain", "--untracked-files=all")).toBe("");
      expect(existsSync(path.join(warm.workspaceRoot, "README.md"))).toBe(false);
      expect(await readFile(path.join(warm.workspaceRoot, "src", "add.js"), "utf8")).toContain("b + a");
      expect(await readFile(path.join(warm.workspaceRoot, "docs", "new.md"), "utf8")).toBe(
        "added after the first task\n",
      );
      // What a clone makes: origin as given, its branches as remote-tracking refs, tags peeled.
      expect(gitHere("remote", "get-url", "origin")).toBe(cloneUrl);
      expect(gitHere("rev-parse", "origin/main")).toBe(pushed);
      expect(gitHere("rev-parse", "origin/HEAD")).toBe(pushed);
      expect(gitHere("rev-parse", "v1.0^{commit}")).toBe(git(bare, "rev-parse", "v1.0^{commit}"));
      expect(gitHere("log", "--format=%s", "origin/main~1..HEAD")).toBe("add, change and delete");
      // Not a partial clone: git there can never fetch a missing object.
      const config = await readFile(path.join(warm.repository.gitDirectory, "config"), "utf8");
      expect(config).not.toMatch(/partialclone|promisor|worktree|hooks/i);
      const alternates = await readFile(
        path.join(warm.repository.gitDirectory, "objects", "info", "alternates"),
        "utf8",
      );
      expect(alternates.trim().endsWith(path.join("objects"))).toBe(true);
      expect(warm.repository.sandboxReadOnlyPaths).toContain(alternates.trim());
    } finally {
      await warm.cleanup();
    }
  });

  it("walks the tree when the record names a commit the mirror does not hold", async () => {
    const cacheDir = path.join(root, "cache-bad-record");
    const cache = createRepositoryCache({ cacheDir });
    const request = { cloneUrl, token: "ghs_unused", ref: "main" };
    const cold = await cache.checkout(request);
    await cold.cleanup();
    const [mirrorName] = (await readdir(path.join(cacheDir, "mirrors"))).filter((name) =>
      name.endsWith(".git"),
    );
    const record = path.join(cacheDir, "mirrors", mirrorName ?? "", "agentforge-complete-commit");
    await writeFile(record, `${"1".repeat(40)}\n`);
    const warm = await cache.checkout(request);
    try {
      const gitHere = (...args: string[]): string =>
        git(warm.workspaceRoot, `--git-dir=${warm.repository.gitDirectory}`, ...args);
      expect(gitHere("rev-parse", "HEAD")).toBe(git(bare, "rev-parse", "main"));
      expect(gitHere("status", "--porcelain", "--untracked-files=all")).toBe("");
      expect((await readFile(record, "utf8")).trim()).toBe(warm.headSha);
    } finally {
      await warm.cleanup();
    }
  });
});
