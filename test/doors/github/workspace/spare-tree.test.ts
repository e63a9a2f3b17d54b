import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { existsSync, watch } from "node:fs";
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { createRepositoryCache } from "../../../../src/doors/github/workspace/create-repository-cache.js";
import { createRemoteRepository, git, pushCommit } from "./git-fixtures.js";

const TOKEN = "ghs_spareTreeTestToken0123456789abcdefAB";

describe("spare trees: the next checkout writes only what changed", () => {
  let root: string;
  let bare: string;
  let otherBare: string;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), "agentforge-spare-"));
    ({ bare } = await createRemoteRepository(path.join(root, "remotes"), "demo", 1_000));
    ({ bare: otherBare } = await createRemoteRepository(path.join(root, "remotes"), "other", 1_000));
  });

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const urlOf = (repository: string): string => pathToFileURL(repository).href;

  it("checks the pushed commit out over the spare; nothing a task wrote comes back", async () => {
    const cache = createRepositoryCache({ cacheDir: path.join(root, "cache-a"), spareTrees: 1 });
    const request = { cloneUrl: urlOf(bare), token: TOKEN, ref: "main" };
    const first = await cache.checkout(request);
    expect(first.treeSource).toBe("written");
    // What a sandboxed task leaves: a changed file, a new one.
    await writeFile(path.join(first.workspaceRoot, "src", "add.js"), "planted\n");
    await writeFile(path.join(first.workspaceRoot, "planted.sh"), "echo planted\n");
    await first.cleanup();
    await cache.settled();

    const pushed = await pushCommit(bare, "main", "README.md", "# pushed\n", { "src/new.js": "new\n" });
    const second = await cache.checkout({ ...request, branch: "agentforge/issue-3" });
    expect(second.treeSource).toBe("spare");
    expect(second.headSha).toBe(pushed);
    const tree = second.workspaceRoot;
    expect(git(tree, "rev-parse", "HEAD")).toBe(pushed);
    expect(git(tree, "rev-parse", "--abbrev-ref", "HEAD")).toBe("agentforge/issue-3");
    expect(git(tree, "rev-parse", "origin/main")).toBe(pushed);
    expect(git(tree, "status", "--porcelain", "--untracked-files=all")).toBe("");
    expect(await readFile(path.join(tree, "README.md"), "utf8")).toBe("# pushed\n");
    expect(await readFile(path.join(tree, "src", "new.js"), "utf8")).toBe("new\n");
    expect(await readFile(path.join(tree, "src", "add.js"), "utf8")).toContain("export const add");
    expect(existsSync(path.join(tree, "planted.sh"))).toBe(false);
    // The git directory tells of this task only: its .git file names it, its reflog has no spare.
    expect(await readFile(path.join(tree, ".git"), "utf8")).toBe(
      `gitdir: ${second.repository.gitDirectory}\n`,
    );
    expect(git(tree, "reflog", "--format=%gs").split("\n")).toHaveLength(1);
    expect(git(tree, "fsck", "--connectivity-only", "--no-dangling")).toBe("");

    // A spare serves one task: the next checkout, with no task ended between, writes its tree.
    const third = await cache.checkout(request);
    expect(third.treeSource).toBe("written");
    await Promise.all([second.cleanup(), third.cleanup()]);
    await cache.settled();
  });

  it("close ends a spare being written: nothing is placed, nothing half made is left, none follows", async () => {
    const cacheDir = path.join(root, "cache-close");
    const cache = createRepositoryCache({ cacheDir, spareTrees: 1 });
    const request = { cloneUrl: urlOf(bare), token: TOKEN, ref: "main" };
    const first = await cache.checkout(request);
    const second = await cache.checkout(request);
    // The spare's write starts as the task's folder is removed; the cache is closed once its
    // half-made folder exists, while git writes the tree or the write waits out its second.
    const sparesDir = path.join(cacheDir, "spares");
    await mkdir(sparesDir, { recursive: true });
    const watcher = watch(sparesDir);
    const begun = new Promise<void>((resolve) =>
      watcher.on("change", (_event, name) => {
        if (String(name).startsWith(".partial-")) resolve();
      }),
    );
    await first.cleanup();
    await begun;
    watcher.close();
    await cache.close();
    expect(existsSync(sparesDir) ? await readdir(sparesDir) : []).toEqual([]);
    // A closed cache still checks out, and writes no spare after a task.
    await second.cleanup();
    await cache.settled();
    expect(existsSync(sparesDir) ? await readdir(sparesDir) : []).toEqual([]);
    const third = await cache.checkout(request);
    expect(third.treeSource).toBe("written");
    expect(git(third.workspaceRoot, "status", "--porcelain", "--untracked-files=all")).toBe("");
    await third.cleanup();
  });

  it("keeps no spare by default", async () => {
    const cacheDir = path.join(root, "cache-b");
    const cache = createRepositoryCache({ cacheDir });
    const request = { cloneUrl: urlOf(bare), token: TOKEN, ref: "main" };
    await (await cache.checkout(request)).cleanup();
    await cache.settled();
    expect(existsSync(path.join(cacheDir, "spares"))).toBe(false);
    expect((await cache.checkout(request)).treeSource).toBe("written");
  });

  it("keeps at most `spareTrees` spares, the newest", async () => {
    const cacheDir = path.join(root, "cache-c");
    const cache = createRepositoryCache({ cacheDir, spareTrees: 1 });
    await (await cache.checkout({ cloneUrl: urlOf(bare), token: TOKEN, ref: "main" })).cleanup();
    await cache.settled();
    await (await cache.checkout({ cloneUrl: urlOf(otherBare), token: TOKEN, ref: "main" })).cleanup();
    await cache.settled();
    const spares = await readdir(path.join(cacheDir, "spares"));
    expect(spares).toHaveLength(1);
    expect(spares[0]).toContain("other");
    expect((await cache.checkout({ cloneUrl: urlOf(bare), token: TOKEN, ref: "main" })).treeSource).toBe(
      "written",
    );
    expect((await cache.checkout({ cloneUrl: urlOf(otherBare), token: TOKEN, ref: "main" })).treeSource).toBe(
      "spare",
    );
  });

  it.each([
    ["names a commit the mirror does not hold", "ready", `${"1".repeat(40)}\n`],
    ["has a damaged index", "git/index", "not an index"],
  ])("writes the whole tree when the spare %s", async (_case, file, text) => {
    const cacheDir = path.join(root, `cache-d-${file.replace("/", "-")}`);
    const cache = createRepositoryCache({ cacheDir, spareTrees: 1 });
    const request = { cloneUrl: urlOf(bare), token: TOKEN, ref: "main" };
    await (await cache.checkout(request)).cleanup();
    await cache.settled();
    const [spare] = await readdir(path.join(cacheDir, "spares"));
    await writeFile(path.join(cacheDir, "spares", spare ?? "", file), text);
    const checkout = await cache.checkout(request);
    expect(checkout.treeSource).toBe("written");
    expect(git(checkout.workspaceRoot, "status", "--porcelain", "--untracked-files=all")).toBe("");
    expect(await readFile(path.join(checkout.workspaceRoot, "src", "add.js"), "utf8")).toContain(
      "export const add",
    );
    expect(await readdir(path.join(cacheDir, "workspaces"))).toHaveLength(1);
  });
});
