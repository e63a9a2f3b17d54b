import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findObjectAlternates } from "../../../../src/core/sandbox/find-object-alternates.js";
import { commitAndPush } from "../../../../src/doors/github/workspace/commit-and-push.js";
import { commitRepository, gitIn as git } from "../../../support/git-in.js";

/*
 * A sandboxed command cannot read another repository on this machine, but it can write the
 * checkout's `objects/info/alternates` and point a ref at a commit it knows the id of. The host's
 * commit and push would then carry that other repository's history to the pull request.
 */

describe("object alternates written in the sandbox", () => {
  let dir: string;
  let workspace: string;
  let remote: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "agentforge-alternates-"));
    // Another tenant's repository on the same machine, with a commit whose id is known.
    const victim = join(dir, "victim");
    const victimCommit = commitRepository(victim, { "secret.txt": "TOP SECRET\n" }, "secret");

    remote = join(dir, "remote.git");
    git(dir, "init", "-q", "--bare", remote);
    workspace = join(dir, "workspace");
    commitRepository(workspace, { "a.txt": "one\n" });
    // What the sandboxed command writes: an alternate object store and the current branch moved.
    writeFileSync(
      join(workspace, ".git", "objects", "info", "alternates"),
      `${join(victim, ".git", "objects")}\n`,
    );
    const branch = git(workspace, "symbolic-ref", "HEAD").trim();
    git(workspace, "update-ref", branch, victimCommit);
    writeFileSync(join(workspace, "a.txt"), "two\n");
  });

  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it("refuses to commit or push, and the remote never sees the other repository", async () => {
    expect(await findObjectAlternates(workspace)).toEqual([".git/objects/info/alternates"]);
    const result = await commitAndPush({
      workspaceRoot: workspace,
      branch: "agentforge/issue-1",
      message: "x",
      author: { name: "agentforge[bot]", email: "1+agentforge[bot]@users.noreply.github.com" },
      token: "ghs_alternatesTestToken0123456789abcdefAB",
      remoteUrl: remote,
    });
    expect(result).toMatchObject({ committed: false, pushed: false });
    expect(result.error).toContain("objects/info/alternates");
    expect(git(remote, "for-each-ref").trim()).toBe("");
  });

  it("is a real threat: a plain commit and push would carry the other repository's secret", () => {
    git(workspace, "add", "--all");
    git(workspace, "commit", "-q", "-m", "agent");
    git(workspace, "push", "-q", remote, "HEAD:refs/heads/leak");
    expect(git(remote, "show", "leak~1:secret.txt")).toBe("TOP SECRET\n");
  });
});
