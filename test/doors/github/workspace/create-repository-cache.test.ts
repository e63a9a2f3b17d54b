import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRepositoryCache } from "../../../../src/doors/github/workspace/create-repository-cache.js";
import { basicAuthorizationHeader } from "../../../../src/core/git/host-git-environment.js";
import { WorkspaceError } from "../../../../src/doors/github/workspace/workspace-error.js";
import { createRemoteRepository, findFilesContaining, git, pushCommit } from "./git-fixtures.js";
import { startGitHttpServer, type GitHttpServer } from "./git-http-server.js";

const TOKEN = "ghs_cacheTestToken0123456789abcdefABCDEF";

describe("createRepositoryCache", () => {
  let root: string;
  let server: GitHttpServer;
  let seedSha: string;
  let bare: string;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), "agentforge-cache-"));
    const projectRoot = path.join(root, "remotes");
    ({ bare, seedSha } = await createRemoteRepository(projectRoot, "demo"));
    server = await startGitHttpServer({ projectRoot, token: TOKEN });
  });

  afterAll(async () => {
    await server.close();
    await rm(root, { recursive: true, force: true });
  });

  function bytesSince(start: number): number {
    return server.requests.slice(start).reduce((sum, request) => sum + request.responseBytes, 0);
  }

  it("clones once, then only fetches; the token is sent but stored nowhere", async () => {
    const cacheDir = path.join(root, "cache-a");
    const cache = createRepositoryCache({ cacheDir });
    const cloneUrl = `${server.url}demo.git`;

    const coldStart = performance.now();
    const coldRequests = server.requests.length;
    const cold = await cache.checkout({ cloneUrl, token: TOKEN, ref: "main", branch: "agentforge/issue-7" });
    const coldMs = performance.now() - coldStart;
    const coldBytes = bytesSince(coldRequests);

    const warmStart = performance.now();
    const warmRequests = server.requests.length;
    const warm = await cache.checkout({ cloneUrl, token: TOKEN, ref: "main" });
    const warmMs = performance.now() - warmStart;
    const warmBytes = bytesSince(warmRequests);

    expect(cold.cacheState).toBe("cold");
    expect(warm.cacheState).toBe("warm");
    expect(cold.headSha).toBe(seedSha);
    expect(warm.headSha).toBe(seedSha);
    expect(cold.remoteBranchSha).toBeNull();
    // The cold clone carried the 200 kB blob; the warm fetch only a ref advertisement.
    expect(coldBytes).toBeGreaterThan(200_000);
    expect(warmBytes).toBeLessThan(5_000);
    expect(server.requests.every((request) => request.status === 200)).toBe(true);

    expect(git(cold.workspaceRoot, "rev-parse", "--abbrev-ref", "HEAD")).toBe("agentforge/issue-7");
    expect(git(warm.workspaceRoot, "rev-parse", "--abbrev-ref", "HEAD")).toBe("HEAD");
    expect(await readFile(path.join(cold.workspaceRoot, "src", "add.js"), "utf8")).toContain("add");
    expect(git(cold.workspaceRoot, "remote", "get-url", "origin")).toBe(cloneUrl);
    // Self-contained: no alternates into the cache, which the sandbox cannot see.
    expect(existsSync(path.join(cold.workspaceRoot, ".git", "objects", "info", "alternates"))).toBe(false);
    expect(git(cold.workspaceRoot, "fsck", "--connectivity-only")).toBe("");

    const encodedHeader = basicAuthorizationHeader(TOKEN).split(" ").pop()!;
    expect(await findFilesContaining(cacheDir, [TOKEN, encodedHeader])).toEqual([]);

    process.stdout.write(
      `checkout of a small repository: cold ${coldMs.toFixed(0)} ms, warm ${warmMs.toFixed(0)} ms\n`,
    );
    await cold.cleanup();
    await warm.cleanup();
    expect(existsSync(cold.workspaceRoot)).toBe(false);
    expect(existsSync(path.join(cacheDir, "mirrors"))).toBe(true);
  });

  it("sees new commits on a warm checkout and reports where the work branch stands", async () => {
    const cache = createRepositoryCache({ cacheDir: path.join(root, "cache-b") });
    const cloneUrl = `${server.url}demo.git`;
    const first = await cache.checkout({ cloneUrl, token: TOKEN, ref: "main" });
    await first.cleanup();
    await pushCommit(bare, "main", "NEWS.md", "news\n");
    git(bare, "branch", "agentforge/issue-9", "main");
    const newMain = git(bare, "rev-parse", "main");

    const second = await cache.checkout({
      cloneUrl,
      token: TOKEN,
      ref: "main",
      branch: "agentforge/issue-9",
    });
    expect(second.cacheState).toBe("warm");
    expect(second.headSha).toBe(newMain);
    expect(second.remoteBranchSha).toBe(newMain);
    expect(existsSync(path.join(second.workspaceRoot, "NEWS.md"))).toBe(true);
    await second.cleanup();
  });

  it("fetches a pull request head that no branch points at", async () => {
    const cache = createRepositoryCache({ cacheDir: path.join(root, "cache-c") });
    const forkSha = await pushCommit(bare, "main", "fork.txt", "from a fork\n");
    git(bare, "update-ref", "refs/pull/3/head", forkSha);
    // main moved back: the commit is reachable only from refs/pull/3/head.
    git(bare, "update-ref", "refs/heads/main", `${forkSha}~1`);

    const byRef = await cache.checkout({
      cloneUrl: `${server.url}demo.git`,
      token: TOKEN,
      ref: "refs/pull/3/head",
      fetchRefs: ["refs/pull/3/head"],
    });
    expect(byRef.headSha).toBe(forkSha);
    await byRef.cleanup();

    git(bare, "update-ref", "-d", "refs/pull/3/head");
    const otherCache = createRepositoryCache({ cacheDir: path.join(root, "cache-c2") });
    const bySha = await otherCache.checkout({
      cloneUrl: `${server.url}demo.git`,
      token: TOKEN,
      ref: forkSha,
    });
    expect(bySha.headSha).toBe(forkSha);
    await bySha.cleanup();
  });

  it("serialises concurrent checkouts of one repository: one clone, one fetch", async () => {
    const cache = createRepositoryCache({ cacheDir: path.join(root, "cache-d") });
    const cloneUrl = `${server.url}demo.git`;
    const results = await Promise.all([
      cache.checkout({ cloneUrl, token: TOKEN, ref: "main" }),
      cache.checkout({ cloneUrl, token: TOKEN, ref: "main" }),
    ]);
    expect(results.map((result) => result.cacheState).sort()).toEqual(["cold", "warm"]);
    expect(results[0].workspaceRoot).not.toBe(results[1].workspaceRoot);
    await Promise.all(results.map((result) => result.cleanup()));
  });

  it("fails with a typed error and no token when the token is wrong", async () => {
    const cache = createRepositoryCache({ cacheDir: path.join(root, "cache-e") });
    const wrong = "ghs_wrongToken0000000000000000000000000";
    const attempt = cache.checkout({ cloneUrl: `${server.url}demo.git`, token: wrong, ref: "main" });
    await expect(attempt).rejects.toBeInstanceOf(WorkspaceError);
    const error = (await attempt.catch((caught: unknown) => caught)) as WorkspaceError;
    expect(error.code).toBe("CLONE_FAILED");
    expect(error.message).not.toContain(wrong);
    expect(server.requests.at(-1)?.status).toBe(401);
    expect(existsSync(path.join(root, "cache-e", "mirrors"))).toBe(true);
    expect(await findFilesContaining(path.join(root, "cache-e"), [wrong])).toEqual([]);
  });

  it("refuses a clone URL with credentials in it, and an unknown ref", async () => {
    const cache = createRepositoryCache({ cacheDir: path.join(root, "cache-f") });
    await expect(
      cache.checkout({
        cloneUrl: `http://x-access-token:${TOKEN}@127.0.0.1/demo.git`,
        token: TOKEN,
        ref: "main",
      }),
    ).rejects.toMatchObject({ code: "INVALID_REMOTE_URL" });
    await expect(
      cache.checkout({ cloneUrl: `${server.url}demo.git`, token: TOKEN, ref: "no-such-branch" }),
    ).rejects.toMatchObject({ code: "REF_NOT_FOUND" });
    for (const ref of ["--upload-pack=touch /tmp/pwned", "main branch", "a\nb"]) {
      await expect(
        cache.checkout({ cloneUrl: `${server.url}demo.git`, token: TOKEN, ref }),
      ).rejects.toMatchObject({
        code: "INVALID_REF",
      });
    }
    await expect(
      cache.checkout({ cloneUrl: `${server.url}demo.git`, token: TOKEN, ref: "main", fetchRefs: ["-x"] }),
    ).rejects.toMatchObject({ code: "INVALID_REF" });
  });

  it("works with a local bare repository as the remote", async () => {
    const cache = createRepositoryCache({ cacheDir: path.join(root, "cache-g") });
    const checkout = await cache.checkout({ cloneUrl: bare, token: TOKEN, ref: "main" });
    expect(checkout.headSha).toBe(git(bare, "rev-parse", "main"));
    await checkout.cleanup();
  });

  it("removes workspaces and half-made mirrors left by a killed process, and keeps mirrors", async () => {
    const cacheDir = path.join(root, "cache-i");
    const cache = createRepositoryCache({ cacheDir });
    const left = await cache.checkout({ cloneUrl: `${server.url}demo.git`, token: TOKEN, ref: "main" });
    await mkdir(path.join(cacheDir, "mirrors", ".partial-abc"));
    expect(await createRepositoryCache({ cacheDir }).removeLeftovers()).toBe(2);
    expect(existsSync(left.workspaceRoot)).toBe(false);
    const again = await cache.checkout({ cloneUrl: `${server.url}demo.git`, token: TOKEN, ref: "main" });
    expect(again.cacheState).toBe("warm");
    await again.cleanup();
  });

  it("stops when the signal is aborted", async () => {
    const cache = createRepositoryCache({ cacheDir: path.join(root, "cache-h") });
    const controller = new AbortController();
    controller.abort();
    await expect(
      cache.checkout({
        cloneUrl: `${server.url}demo.git`,
        token: TOKEN,
        ref: "main",
        signal: controller.signal,
      }),
    ).rejects.toMatchObject({ code: "CANCELLED" });
  });
});
