import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { buildCommitMessage, commitAndPush } from "../../../../src/doors/github/workspace/commit-and-push.js";
import {
  createRepositoryCache,
  type RepositoryCache,
} from "../../../../src/doors/github/workspace/create-repository-cache.js";
import { basicAuthorizationHeader } from "../../../../src/core/git/host-git-environment.js";
import { redactToken } from "../../../../src/core/git/run-host-git.js";
import type { WorkspaceRepository } from "../../../../src/core/git/workspace-repository.js";
import { createRemoteRepository, findFilesContaining, git, pushCommit } from "./git-fixtures.js";
import { startGitHttpServer, type GitHttpServer } from "./git-http-server.js";

const TOKEN = "ghs_pushTestToken0123456789abcdefABCDEFGH";
const APP = { name: "agentforge[bot]", email: "123+agentforge[bot]@users.noreply.github.com" };
const REQUESTER = { name: "octocat", email: "583231+octocat@users.noreply.github.com" };

describe("commitAndPush", () => {
  let root: string;
  let server: GitHttpServer;
  let bare: string;
  let cache: RepositoryCache;
  let cloneUrl: string;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), "agentforge-push-"));
    const projectRoot = path.join(root, "remotes");
    ({ bare } = await createRemoteRepository(projectRoot, "demo", 1_000));
    server = await startGitHttpServer({ projectRoot, token: TOKEN });
    cache = createRepositoryCache({ cacheDir: path.join(root, "cache") });
    cloneUrl = `${server.url}demo.git`;
  });

  afterAll(async () => {
    await server.close();
    await rm(root, { recursive: true, force: true });
  });

  const push = (
    checkout: { readonly repository: WorkspaceRepository },
    branch: string,
    extra: { expectedRemoteSha?: string; baseSha?: string } = {},
  ) =>
    commitAndPush({
      repository: checkout.repository,
      branch,
      message: "Fix the adder (#12)\n\nAdds a test for negative numbers.",
      author: APP,
      coAuthor: REQUESTER,
      token: TOKEN,
      remoteUrl: cloneUrl,
      ...extra,
    });

  it("commits as the App with the requester as co-author and pushes with the token", async () => {
    const checkout = await cache.checkout({
      cloneUrl,
      token: TOKEN,
      ref: "main",
      branch: "agentforge/issue-12",
    });
    await writeFile(
      path.join(checkout.workspaceRoot, "src", "add.js"),
      "export const add = (a, b) => b + a;\n",
    );
    await writeFile(path.join(checkout.workspaceRoot, "debug.log"), "ignored\n");
    const pushesBefore = server.requests.filter((request) => request.service === "git-receive-pack").length;

    const result = await push(checkout, "agentforge/issue-12");

    expect(result).toEqual({
      committed: true,
      sha: expect.any(String),
      pushed: true,
      files: [{ path: "src/add.js", changedBy: "command" }],
      excluded: [{ path: "debug.log", reason: "ignored by the repository (.gitignore)" }],
    });
    expect(git(bare, "rev-parse", "refs/heads/agentforge/issue-12")).toBe(result.sha);
    const receivePacks = server.requests.filter((request) => request.service === "git-receive-pack");
    expect(receivePacks.length).toBeGreaterThan(pushesBefore);
    expect(
      receivePacks.every((request) => request.authorization === basicAuthorizationHeader(TOKEN).slice(15)),
    ).toBe(true);

    expect(git(bare, "log", "-1", "--format=%an <%ae>|%cn", result.sha!)).toBe(
      `${APP.name} <${APP.email}>|${APP.name}`,
    );
    expect(git(bare, "log", "-1", "--format=%(trailers:key=Co-authored-by,valueonly)", result.sha!)).toBe(
      `${REQUESTER.name} <${REQUESTER.email}>`,
    );
    expect(git(bare, "log", "-1", "--format=%s", result.sha!)).toBe("Fix the adder (#12)");
    expect(git(bare, "show", "--name-only", "--format=", result.sha!)).toBe("src/add.js");

    const encoded = basicAuthorizationHeader(TOKEN).split(" ").pop()!;
    expect(await findFilesContaining(root, [TOKEN, encoded])).toEqual([]);
    await checkout.cleanup();
  });

  it("commits what the agent and its commands meant, leaves build output out and says why", async () => {
    const checkout = await cache.checkout({
      cloneUrl,
      token: TOKEN,
      ref: "main",
      branch: "agentforge/issue-41",
    });
    const at = (...parts: string[]) => path.join(checkout.workspaceRoot, ...parts);
    await writeFile(at("src", "add.js"), "export const add = (a, b) => a + b + 0;\n");
    await mkdir(at("src", "__pycache__"), { recursive: true });
    await writeFile(at("src", "__pycache__", "add.cpython-312.pyc"), "bytecode");
    await writeFile(at("CHANGES.md"), "a command wrote this\n");
    await writeFile(at("fixture.pyc"), "the agent wrote this on purpose");
    const result = await commitAndPush({
      repository: checkout.repository,
      branch: "agentforge/issue-41",
      message: "Fix (#41)",
      author: APP,
      token: TOKEN,
      remoteUrl: cloneUrl,
      agentChangedFiles: ["src/add.js", "fixture.pyc"],
    });
    expect(result.pushed).toBe(true);
    expect(result.files).toEqual([
      { path: "CHANGES.md", changedBy: "command" },
      { path: "fixture.pyc", changedBy: "agent" },
      { path: "src/add.js", changedBy: "agent" },
    ]);
    expect(result.excluded).toEqual([
      { path: "src/__pycache__/add.cpython-312.pyc", reason: "build output (matches `__pycache__/`)" },
    ]);
    expect(git(bare, "show", "--name-only", "--format=", result.sha!).split("\n").sort()).toEqual([
      "CHANGES.md",
      "fixture.pyc",
      "src/add.js",
    ]);

    // A repository's own list replaces the default one.
    await writeFile(at("CHANGES.md"), "changed again\n");
    await writeFile(at("src", "__pycache__", "other.pyc"), "bytecode");
    const own = await commitAndPush({
      repository: checkout.repository,
      branch: "agentforge/issue-41",
      message: "Fix again (#41)",
      author: APP,
      token: TOKEN,
      remoteUrl: cloneUrl,
      buildOutputPatterns: ["*.md"],
    });
    expect(own.files?.map((file) => file.path).sort()).toEqual([
      "src/__pycache__/add.cpython-312.pyc",
      "src/__pycache__/other.pyc",
    ]);
    expect(own.excluded).toContainEqual({ path: "CHANGES.md", reason: "build output (matches `*.md`)" });
    await checkout.cleanup();
  });

  it("reports no change without committing", async () => {
    const checkout = await cache.checkout({
      cloneUrl,
      token: TOKEN,
      ref: "main",
      branch: "agentforge/issue-13",
    });
    await writeFile(path.join(checkout.workspaceRoot, "only.log"), "ignored by .gitignore\n");
    const headBefore = git(checkout.workspaceRoot, "rev-parse", "HEAD");
    expect(await push(checkout, "agentforge/issue-13")).toEqual({
      committed: false,
      pushed: false,
    });
    expect(git(checkout.workspaceRoot, "rev-parse", "HEAD")).toBe(headBefore);
    await checkout.cleanup();
  });

  it("returns the refusal when someone pushed to the branch meanwhile, then replaces it under a lease", async () => {
    const branch = "agentforge/issue-14";
    git(bare, "branch", branch, "main");
    const checkout = await cache.checkout({ cloneUrl, token: TOKEN, ref: "main", branch });
    const lease = checkout.remoteBranchSha!;
    const theirs = await pushCommit(bare, branch, "theirs.txt", "someone else\n");
    await writeFile(path.join(checkout.workspaceRoot, "ours.txt"), "ours\n");

    const fastForwardOnly = await push(checkout, branch);
    expect(fastForwardOnly.committed).toBe(true);
    expect(fastForwardOnly.pushed).toBe(false);
    expect(fastForwardOnly.error).toMatch(/rejected|fetch first|non-fast-forward/i);
    // The retry has nothing new to stage; with baseSha it still pushes the earlier commit.
    const staleLease = await push(checkout, branch, {
      expectedRemoteSha: lease,
      baseSha: checkout.headSha,
    });
    expect(staleLease.sha).toBe(fastForwardOnly.sha);
    expect(staleLease.pushed).toBe(false);
    expect(staleLease.error).toMatch(/stale info|rejected/i);
    expect(git(bare, "rev-parse", `refs/heads/${branch}`)).toBe(theirs);

    // A re-run that started over from main replaces the previous attempt on the same branch.
    const rerun = await cache.checkout({ cloneUrl, token: TOKEN, ref: "main", branch });
    expect(rerun.remoteBranchSha).toBe(theirs);
    await writeFile(path.join(rerun.workspaceRoot, "ours.txt"), "ours, again\n");
    const replaced = await push(rerun, branch, { expectedRemoteSha: rerun.remoteBranchSha! });
    expect(replaced.pushed).toBe(true);
    expect(git(bare, "rev-parse", `refs/heads/${branch}`)).toBe(replaced.sha);
    await Promise.all([checkout.cleanup(), rerun.cleanup()]);
  });

  it("returns a redacted error when the remote refuses the push", async () => {
    const checkout = await cache.checkout({
      cloneUrl,
      token: TOKEN,
      ref: "main",
      branch: "agentforge/issue-15",
    });
    await writeFile(path.join(checkout.workspaceRoot, "new.txt"), "new\n");
    server.setRefusePush(true);
    try {
      const result = await push(checkout, "agentforge/issue-15");
      expect(result.committed).toBe(true);
      expect(result.pushed).toBe(false);
      expect(result.error).toMatch(/403/);
      expect(result.error).not.toContain(TOKEN);
    } finally {
      server.setRefusePush(false);
    }
    expect(() => git(bare, "rev-parse", "--verify", "--quiet", "refs/heads/agentforge/issue-15")).toThrow();
    await checkout.cleanup();
  });

  it("pushes to a local bare repository and refuses a malformed branch", async () => {
    const checkout = await cache.checkout({ cloneUrl, token: TOKEN, ref: "main" });
    await writeFile(path.join(checkout.workspaceRoot, "local.txt"), "local\n");
    const bad = await commitAndPush({
      repository: checkout.repository,
      branch: "bad..branch",
      message: "x",
      author: APP,
      token: TOKEN,
      remoteUrl: bare,
    });
    expect(bad.committed).toBe(false);
    expect(bad.error).toBeDefined();
    const result = await commitAndPush({
      repository: checkout.repository,
      branch: "agentforge/issue-16",
      message: "Local change (#16)",
      author: APP,
      token: TOKEN,
      remoteUrl: bare,
    });
    expect(result.pushed).toBe(true);
    expect(git(bare, "log", "-1", "--format=%B", "agentforge/issue-16")).toBe("Local change (#16)");
    await checkout.cleanup();
  });

  it("builds the trailer in its own paragraph and redacts every form of the token", () => {
    expect(buildCommitMessage("Subject\n", REQUESTER)).toBe(
      `Subject\n\nCo-authored-by: ${REQUESTER.name} <${REQUESTER.email}>\n`,
    );
    const header = basicAuthorizationHeader(TOKEN);
    const text = `fatal: ${header} and ${TOKEN} and ${header.split(" ").pop()}`;
    const redacted = redactToken(text, TOKEN);
    expect(redacted).not.toContain(TOKEN);
    expect(redacted).not.toContain(header.split(" ").pop());
  });
});
