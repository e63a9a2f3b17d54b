import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findNestedRepositories } from "../../../../src/core/git/find-nested-repositories.js";
import type { WorkspaceRepository } from "../../../../src/core/git/workspace-repository.js";
import { listChangedFiles } from "../../../../src/core/eval/eval-git.js";
import { commitAndPush } from "../../../../src/doors/github/workspace/commit-and-push.js";
import { captureWorkspaceChanges } from "../../../../src/doors/github/workspace/workspace-changes.js";
import { commitRepository, gitIn as git } from "../../../support/git-in.js";

/*
 * What a sandboxed command can do, since the whole workspace is writable for it: make a git
 * repository inside the workspace whose own config names a program (a clean filter, a file-system
 * monitor), and stage it as a gitlink through the writable index. Host git commands in the outer
 * repository then start a git inside it, which runs that program on the host. These tests make
 * such a repository for real and check that no host-side step runs git over it.
 */

describe("nested repositories made in the sandbox", () => {
  let dir: string;
  let workspace: string;
  let markers: string;
  let baseSha: string;
  let repository: WorkspaceRepository;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "agentforge-nested-"));
    workspace = join(dir, "workspace");
    markers = join(dir, "ran-on-host");
    mkdirSync(markers);
    baseSha = commitRepository(workspace, { "a.txt": "one\n" });
    repository = { gitDirectory: join(workspace, ".git"), workTree: workspace, sandboxReadOnlyPaths: [] };

    // The hostile repository, two folders down, staged as a gitlink, then changed.
    const evil = join(workspace, "deep", "er", "evil");
    const evilCommit = commitRepository(evil, { ".gitattributes": "* filter=evil\n", "s.txt": "s\n" }, "s");
    git(evil, "config", "core.fsmonitor", `touch ${join(markers, "fsmonitor")}; echo`);
    git(evil, "config", "filter.evil.clean", `touch ${join(markers, "filter")}; cat`);
    git(workspace, "update-index", "--add", "--cacheinfo", `160000,${evilCommit},deep/er/evil`);
    appendFileSync(join(evil, "s.txt"), "changed\n");
    // And one not staged, with a commit: git reports it as an embedded repository.
    commitRepository(join(workspace, "other"), { "o.txt": "o\n" }, "o");
    writeFileSync(join(workspace, "a.txt"), "two\n");
  });

  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  const ranOnHost = (): boolean =>
    existsSync(join(markers, "fsmonitor")) || existsSync(join(markers, "filter"));

  it("finds the staged gitlink and the embedded repository without running anything in them", async () => {
    expect(await findNestedRepositories(repository)).toEqual(["deep/er/evil", "other"]);
    expect(ranOnHost()).toBe(false);
  });

  it("commits and pushes the rest, leaves them out, and runs nothing on the host", async () => {
    const remote = join(dir, "remote.git");
    git(dir, "init", "-q", "--bare", remote);
    const result = await commitAndPush({
      repository,
      branch: "agentforge/issue-1",
      message: "x",
      author: { name: "agentforge[bot]", email: "1+agentforge[bot]@users.noreply.github.com" },
      token: "ghs_nestedTestToken0123456789abcdefABCDEF",
      remoteUrl: remote,
    });
    expect(result).toMatchObject({ committed: true, pushed: true, leftOut: ["deep/er/evil", "other"] });
    expect(ranOnHost()).toBe(false);
    // The pushed commit has the change and neither nested repository, not even the staged gitlink.
    expect(git(remote, "ls-tree", "-r", "--name-only", "agentforge/issue-1").trim().split("\n")).toEqual([
      "a.txt",
    ]);
    expect(git(remote, "show", "agentforge/issue-1:a.txt")).toBe("two\n");
  });

  it("carries the workspace to another worker and lists the eval's changes without entering them", async () => {
    const changes = await captureWorkspaceChanges(repository, baseSha);
    expect(changes.trackedPatchBase64.length).toBeGreaterThan(0);
    expect(Buffer.from(changes.trackedPatchBase64, "base64").toString("utf8")).toContain("+two");
    const changed = await listChangedFiles(repository);
    expect(changed).toContain("a.txt");
    expect(ranOnHost()).toBe(false);
  });

  it("is a real threat: the same host command without the check runs the nested repository's program", () => {
    git(workspace, "add", "--all");
    expect(ranOnHost()).toBe(true);
  });
});
