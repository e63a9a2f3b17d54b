import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { buildHostGitEnvironment } from "../../../src/core/git/host-git-environment.js";
import { assertHostOwnedRepository } from "../../../src/core/git/host-repository.js";
import { runHostGit, runHostGitForExit } from "../../../src/core/git/run-host-git.js";
import { commitRepository, gitIn } from "../../support/git-in.js";

/** What a host holds that no program git starts may learn. */
const SECRETS: Record<string, string> = {
  OPENAI_API_KEY: "sk-hostGitCanaryModelKey0123456789abcdef",
  PRIVATE_KEY: "-----BEGIN RSA PRIVATE KEY-----\ncanary\n-----END RSA PRIVATE KEY-----",
  WEBHOOK_SECRET: "webhook-canary-secret-value",
  REDIS_URL: "redis://:redisCanaryPassword@127.0.0.1:6379/0",
  GITHUB_TOKEN: "ghs_hostGitCanaryToken0123456789abcdefAB",
  GIT_ASKPASS: "/tmp/canary-askpass",
  GIT_SSH_COMMAND: "touch /tmp/canary-ssh",
  GIT_EXTERNAL_DIFF: "/tmp/canary-diff",
  LD_PRELOAD: "/tmp/canary.so",
  AGENTFORGE_CONFIG: "/tmp/canary-config.yml",
};

describe("runHostGit", () => {
  let dir: string;
  let workTree: string;

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "agentforge-host-git-"));
    workTree = path.join(dir, "tree");
    commitRepository(workTree, { "a.txt": "one\n" });
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it("gives git, and every program it would start, an environment with none of the host's secrets", async () => {
    const hostEnv = { ...process.env, ...SECRETS };
    // An alias given by the caller is the one way to make git start a program here on purpose:
    // what it prints is the environment any program git starts would see.
    const { stdout } = await runHostGit(
      { gitDirectory: path.join(workTree, ".git"), workTree },
      ["-c", "alias.dump=!env", "dump"],
      { hostEnv },
    );
    for (const [name, value] of Object.entries(SECRETS)) {
      expect(stdout).not.toContain(value);
      expect(stdout).not.toMatch(new RegExp(`^${name}=`, "m"));
    }
    expect(stdout).toMatch(/^GIT_CONFIG_NOSYSTEM=1$/m);
    expect(stdout).toMatch(/^GIT_CONFIG_GLOBAL=\/dev\/null$/m);
    // HOME leads nowhere: no global config, attributes, ignore file or .netrc is found there.
    expect(stdout).toMatch(/^HOME=\/nonexistent\//m);
  });

  it("passes proxy settings only to an invocation that reaches a remote", () => {
    const hostEnv = { PATH: "/usr/bin", HTTPS_PROXY: "http://user:proxypass@proxy:3128" };
    expect(buildHostGitEnvironment({ hostEnv })["HTTPS_PROXY"]).toBeUndefined();
    expect(buildHostGitEnvironment({ hostEnv, usesNetwork: true })["HTTPS_PROXY"]).toBe(hostEnv.HTTPS_PROXY);
  });

  it("puts the token in one header setting scoped to the remote's origin, never on the command line", () => {
    const env = buildHostGitEnvironment({
      hostEnv: { PATH: "/usr/bin" },
      authentication: {
        token: "ghs_tokenForOneFetch0123456789abcdefABCD",
        remoteUrl: "https://github.com/o/r.git",
      },
    });
    const count = Number(env["GIT_CONFIG_COUNT"]);
    const keys = Array.from({ length: count }, (_, index) => env[`GIT_CONFIG_KEY_${index}`]);
    expect(keys.filter((key) => key?.includes("extraHeader"))).toEqual([
      "http.https://github.com/.extraHeader",
    ]);
  });

  it("obeys none of the programs a repository's own config names: environment config outranks it", async () => {
    const markers = path.join(dir, "markers");
    mkdirSync(markers);
    const repository = { gitDirectory: path.join(workTree, ".git"), workTree };
    gitIn(workTree, "config", "core.fsmonitor", `touch ${path.join(markers, "fsmonitor")}; false`);
    gitIn(workTree, "config", "core.hooksPath", path.join(dir, "hooks"));
    gitIn(workTree, "config", "core.pager", `touch ${path.join(markers, "pager")}; cat`);
    mkdirSync(path.join(dir, "hooks"));
    writeFileSync(path.join(dir, "hooks", "pre-commit"), `#!/bin/sh\ntouch ${path.join(markers, "hook")}\n`, {
      mode: 0o755,
    });
    writeFileSync(path.join(workTree, "a.txt"), "two\n");
    await runHostGit(repository, ["status", "--porcelain"]);
    await runHostGit(repository, ["add", "--all"]);
    await runHostGit(repository, ["commit", "-q", "-m", "x"], {
      settings: [
        ["user.name", "t"],
        ["user.email", "t@example.com"],
      ],
    });
    expect(existsSync(path.join(markers, "fsmonitor"))).toBe(false);
    expect(existsSync(path.join(markers, "hook"))).toBe(false);
    expect(existsSync(path.join(markers, "pager"))).toBe(false);
  });

  it("reports a non-zero exit as data when asked, and as a GIT_FAILED error otherwise", async () => {
    const repository = { gitDirectory: path.join(workTree, ".git"), workTree };
    const exit = await runHostGitForExit(repository, ["rev-parse", "--verify", "--quiet", "nope^{commit}"]);
    expect(exit.exitCode).toBe(1);
    await expect(runHostGit(repository, ["rev-parse", "--verify", "nope^{commit}"])).rejects.toMatchObject({
      code: "GIT_FAILED",
      exitCode: 128,
    });
  });
});

describe("assertHostOwnedRepository", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "agentforge-host-owned-"));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it("accepts a git directory beside the work tree and the work tree's own .git folder", async () => {
    const workTree = path.join(dir, "tree");
    commitRepository(workTree, { "a.txt": "a\n" });
    mkdirSync(path.join(dir, "git"));
    await expect(
      assertHostOwnedRepository({ gitDirectory: path.join(dir, "git"), workTree }),
    ).resolves.toBeUndefined();
    await expect(
      assertHostOwnedRepository({ gitDirectory: path.join(workTree, ".git"), workTree }),
    ).resolves.toBeUndefined();
  });

  it.each([
    ["a folder deeper in the work tree", (tree: string) => path.join(tree, "vendor", ".git")],
    ["another folder at the root", (tree: string) => path.join(tree, ".repo")],
    ["the work tree itself, as a bare repository", (tree: string) => tree],
  ])("refuses %s, which a sandboxed command could have written", async (_label, where) => {
    const workTree = path.join(dir, "tree");
    const gitDirectory = where(workTree);
    mkdirSync(gitDirectory, { recursive: true });
    await expect(assertHostOwnedRepository({ gitDirectory, workTree })).rejects.toMatchObject({
      code: "UNSAFE_REPOSITORY",
    });
    await expect(runHostGit({ gitDirectory, workTree }, ["status"])).rejects.toMatchObject({
      code: "UNSAFE_REPOSITORY",
    });
  });

  it("refuses a .git that is a link, even to a real repository, and a git directory reached through a link", async () => {
    const workTree = path.join(dir, "tree");
    mkdirSync(workTree);
    commitRepository(path.join(dir, "elsewhere"), { "b.txt": "b\n" });
    symlinkSync(path.join(dir, "elsewhere", ".git"), path.join(workTree, ".git"));
    await expect(
      assertHostOwnedRepository({ gitDirectory: path.join(workTree, ".git"), workTree }),
    ).rejects.toMatchObject({ code: "UNSAFE_REPOSITORY" });
    mkdirSync(path.join(workTree, "inner"));
    symlinkSync(path.join(workTree, "inner"), path.join(dir, "outside-link"));
    await expect(
      assertHostOwnedRepository({ gitDirectory: path.join(dir, "outside-link"), workTree }),
    ).rejects.toMatchObject({ code: "UNSAFE_REPOSITORY" });
  });
});
