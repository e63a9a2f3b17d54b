import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { isHostGitError, runHostGit } from "../../../../src/core/git/index.js";
import { createSandboxRunner } from "../../../../src/core/sandbox/create-sandbox-runner.js";
import { scopeCommandRunner } from "../../../../src/core/tools/scope-command-runner.js";
import { diffForPullRequest } from "../../../../src/doors/github/review/diff-range-for-synchronize.js";
import { commitAndPush } from "../../../../src/doors/github/workspace/commit-and-push.js";
import { createRepositoryCache } from "../../../../src/doors/github/workspace/create-repository-cache.js";
import { mirrorNameOf } from "../../../../src/doors/github/workspace/mirror-name-of.js";
import {
  listAbsentObjects,
  openPresenceView,
} from "../../../../src/doors/github/workspace/open-presence-view.js";
import { describeWithBwrap } from "../../../core/sandbox/sandbox-test-helpers.js";
import { createRemoteRepository, git, pushCommit } from "./git-fixtures.js";
import { startGitHttpServer, type GitHttpServer } from "./git-http-server.js";

const TOKEN = "ghs_partialMirrorToken0123456789abcdefAB";
const BLOB_BYTES = 100_000;
const HISTORY_COMMITS = 6;

/*
 * A repository whose history is much bigger than one snapshot: every commit replaces a
 * 100 kB incompressible file. The cache keeps a blobless mirror and brings only the blobs a task
 * reads; these tests prove what is transferred, that the review and fix paths still work, and
 * that git in the task folder, the host's or a sandboxed command's, fails at once on an object the
 * mirror does not hold instead of going to the network.
 */
describe("a checkout from a partial mirror", () => {
  let root: string;
  let server: GitHttpServer;
  let bare: string;
  let cloneUrl: string;
  /** Commits of main, oldest first. */
  const history: string[] = [];

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), "agentforge-partial-"));
    const projectRoot = path.join(root, "remotes");
    const created = await createRemoteRepository(projectRoot, "history", BLOB_BYTES);
    bare = created.bare;
    history.push(created.seedSha);
    for (let commit = 1; commit <= HISTORY_COMMITS; commit += 1)
      history.push(
        await pushCommit(bare, "main", "data.bin", randomBytes(BLOB_BYTES), {
          "src/add.js": `export const add = (a, b) => a + b; // ${commit}\n`,
        }),
      );
    server = await startGitHttpServer({ projectRoot, token: TOKEN });
    cloneUrl = `${server.url}history.git`;
  }, 60_000);

  afterAll(async () => {
    await server.close();
    await rm(root, { recursive: true, force: true });
  });

  function bytesSince(start: number): number {
    return server.requests.slice(start).reduce((sum, request) => sum + request.responseBytes, 0);
  }

  it("transfers one snapshot's blobs cold, not the history's, and only the new objects warm", async () => {
    const cache = createRepositoryCache({ cacheDir: path.join(root, "cache-transfer") });
    const coldStart = server.requests.length;
    const cold = await cache.checkout({ cloneUrl, token: TOKEN, ref: "main" });
    const coldBytes = bytesSince(coldStart);
    expect(cold.cacheState).toBe("cold");
    expect(cold.headSha).toBe(history.at(-1));
    expect(await readFile(path.join(cold.workspaceRoot, "data.bin"))).toEqual(
      execFileSync("git", ["--git-dir", bare, "show", "main:data.bin"], {
        env: { PATH: process.env["PATH"] },
      }),
    );
    // The history holds seven versions of data.bin; a full clone would carry 700 kB of them.
    expect(coldBytes).toBeGreaterThan(BLOB_BYTES);
    expect(coldBytes).toBeLessThan(2 * BLOB_BYTES);
    await cold.cleanup();

    const newSha = await pushCommit(bare, "main", "data.bin", randomBytes(BLOB_BYTES));
    const warmStart = server.requests.length;
    const warm = await cache.checkout({ cloneUrl, token: TOKEN, ref: "main" });
    const warmBytes = bytesSince(warmStart);
    expect(warm.cacheState).toBe("warm");
    expect(warm.headSha).toBe(newSha);
    // One conversation with the remote: the refresh brings the new commit's blobs with its refs,
    // so no second fetch asks for them.
    const warmFetches = server.requests
      .slice(warmStart)
      .filter((request) => request.path.endsWith("/info/refs"));
    expect(warmFetches).toHaveLength(1);
    // The new version of data.bin, a commit, a tree, refs: nothing old comes again.
    expect(warmBytes).toBeGreaterThan(BLOB_BYTES);
    expect(warmBytes).toBeLessThan(BLOB_BYTES + 20_000);
    // The commit graph is whole: history is there for merge bases and `git log`.
    const log = await runHostGit(warm.repository, ["log", "--format=%H"]);
    expect(log.stdout.trim().split("\n")).toEqual([...history, newSha].reverse());
    await warm.cleanup();
  });

  it("looks objects up in the partial mirror without fetching one: what is absent is reported, not fetched", async () => {
    const cacheDir = path.join(root, "cache-presence");
    const cache = createRepositoryCache({ cacheDir });
    const checkout = await cache.checkout({ cloneUrl, token: TOKEN, ref: "main" });
    await checkout.cleanup();
    const mirror = { gitDirectory: path.join(cacheDir, "mirrors", mirrorNameOf(cloneUrl)) };
    const oldBlob = git(bare, "rev-parse", `${history[1]}:data.bin`);
    const tipBlob = git(bare, "rev-parse", "main:data.bin");
    const requestsBefore = server.requests.length;
    const view = await openPresenceView(mirror);
    expect(await listAbsentObjects(view, [oldBlob, tipBlob], {})).toEqual([oldBlob]);
    expect(server.requests.length).toBe(requestsBefore);
  });

  it("diffs a pull request against a base whose blobs no checkout had, when the job names the base", async () => {
    const base = history.at(-1)!;
    // A pull request branched long ago: its merge base with main is the second commit.
    const headSha = await pushCommit(
      bare,
      "old-topic",
      "src/add.js",
      "export const add = (a, b) => b + a;\n",
      {},
      history[1],
    );
    git(bare, "update-ref", "refs/pull/5/head", headSha);
    const cache = createRepositoryCache({ cacheDir: path.join(root, "cache-review") });

    const without = await cache.checkout({
      cloneUrl,
      token: TOKEN,
      ref: headSha,
      fetchRefs: ["refs/pull/5/head"],
    });
    const requestsBefore = server.requests.length;
    const failure = await diffForPullRequest({ repository: without.repository, base, head: headSha }).then(
      () => null,
      (error: unknown) => error,
    );
    // The task folder never fetches: git fails on the missing blob and asks the remote for nothing.
    expect(isHostGitError(failure) && failure.code === "GIT_FAILED").toBe(true);
    expect(server.requests.length).toBe(requestsBefore);
    await without.cleanup();

    const withBase = await cache.checkout({
      cloneUrl,
      token: TOKEN,
      ref: headSha,
      fetchRefs: ["refs/pull/5/head"],
      diffBases: [base],
    });
    const diff = await diffForPullRequest({ repository: withBase.repository, base, head: headSha });
    expect(diff).toContain("-export const add = (a, b) => a + b; // 1");
    expect(diff).toContain("+export const add = (a, b) => b + a;");
    await withBase.cleanup();
  });

  it("commits and pushes from the task folder", async () => {
    const cache = createRepositoryCache({ cacheDir: path.join(root, "cache-push") });
    const checkout = await cache.checkout({
      cloneUrl,
      token: TOKEN,
      ref: "main",
      branch: "agentforge/issue-3",
    });
    await writeFile(path.join(checkout.workspaceRoot, "FIX.md"), "fixed\n");
    const pushed = await commitAndPush({
      repository: checkout.repository,
      branch: "agentforge/issue-3",
      message: "Fix #3",
      author: { name: "agentforge[bot]", email: "1+agentforge[bot]@users.noreply.github.com" },
      token: TOKEN,
      remoteUrl: cloneUrl,
    });
    expect(pushed).toMatchObject({ committed: true, pushed: true });
    expect(git(bare, "show", "agentforge/issue-3:FIX.md")).toBe("fixed");
    expect(git(bare, "rev-parse", "agentforge/issue-3~1")).toBe(checkout.headSha);
    await checkout.cleanup();
  });

  it("fails `git log -p` over missing objects at once on the host, without asking the remote", async () => {
    const cache = createRepositoryCache({ cacheDir: path.join(root, "cache-log") });
    const checkout = await cache.checkout({ cloneUrl, token: TOKEN, ref: "main" });
    const requestsBefore = server.requests.length;
    const failure = await runHostGit(checkout.repository, ["log", "-p"]).then(
      () => null,
      (error: unknown) => error,
    );
    expect(isHostGitError(failure) && failure.code === "GIT_FAILED").toBe(true);
    expect(String((failure as Error).message)).toMatch(/unable to read|bad object|missing/);
    expect(server.requests.length).toBe(requestsBefore);
    await checkout.cleanup();
  });
});

describeWithBwrap("a sandboxed command on a checkout from a partial mirror", () => {
  let root: string;
  let server: GitHttpServer;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), "agentforge-partial-sandbox-"));
    const projectRoot = path.join(root, "remotes");
    const { bare } = await createRemoteRepository(projectRoot, "history", 10_000);
    await pushCommit(bare, "main", "data.bin", randomBytes(10_000));
    server = await startGitHttpServer({ projectRoot, token: TOKEN });
  }, 60_000);

  afterAll(async () => {
    await server.close();
    await rm(root, { recursive: true, force: true });
  });

  it("sees `git log -p` fail cleanly on a missing object: no network, no prompt, no token", async () => {
    const cache = createRepositoryCache({ cacheDir: path.join(root, "cache") });
    const checkout = await cache.checkout({
      cloneUrl: `${server.url}history.git`,
      token: TOKEN,
      ref: "main",
    });
    const runner = createSandboxRunner({ mode: "bwrap" });
    try {
      const scoped = scopeCommandRunner(runner, { readOnlyPaths: checkout.repository.sandboxReadOnlyPaths });
      const requestsBefore = server.requests.length;
      // The second line makes in-sandbox git a partial clone of its own: its lazy fetch has no
      // network to reach, and the host's server sees nothing.
      const script = [
        "git -c remote.origin.promisor=true log -p > /dev/null 2>&1; echo promisor-exit=$?",
        "git log --oneline | wc -l; git log -p > /dev/null",
      ].join("\n");
      const outcome = await scoped.run(script, {
        cwd: checkout.workspaceRoot,
        workspaceRoot: checkout.workspaceRoot,
        timeoutMs: 30_000,
      });
      expect(outcome.timedOut).toBe(false);
      expect(outcome.exitCode).not.toBe(0);
      // The commit graph is whole (two commits); the first blob outside the snapshot stops git.
      expect(outcome.stdout).toMatch(/^promisor-exit=[1-9]\d*$/m);
      expect(outcome.stdout.trim().split("\n").at(-1)).toBe("2");
      expect(outcome.stderr).toMatch(/unable to read|bad object/);
      expect(outcome.stderr).not.toMatch(/Username|password|fetch/i);
      expect(`${outcome.stdout}${outcome.stderr}`).not.toContain(TOKEN);
      expect(server.requests.length).toBe(requestsBefore);
    } finally {
      runner.close();
      await checkout.cleanup();
    }
  });
});
