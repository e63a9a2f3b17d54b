import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, lstatSync } from "node:fs";
import {
  chmod,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  rm,
  symlink,
  unlink,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  applyWorkspaceChanges,
  captureWorkspaceChanges,
  MAX_UNTRACKED_BYTES,
  type UntrackedFile,
  type WorkspaceChanges,
} from "../../../../src/doors/github/workspace/workspace-changes.js";
import { WorkspaceError } from "../../../../src/doors/github/workspace/workspace-error.js";
import { git } from "./git-fixtures.js";

type Entry =
  | { readonly kind: "file"; readonly executable: boolean; readonly sha256: string }
  | { readonly kind: "symlink"; readonly target: string };

/** Every file and link under root except `.git`, by relative path: what a working tree holds. */
async function snapshotTree(root: string): Promise<Record<string, Entry>> {
  const snapshot: Record<string, Entry> = {};
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    const absolute = path.join(entry.parentPath, entry.name);
    const relative = path.relative(root, absolute);
    if (relative === ".git" || relative.startsWith(`.git${path.sep}`)) continue;
    if (entry.isSymbolicLink()) snapshot[relative] = { kind: "symlink", target: await readlink(absolute) };
    else if (entry.isFile()) {
      const info = await lstat(absolute);
      const sha256 = createHash("sha256")
        .update(await readFile(absolute))
        .digest("hex");
      snapshot[relative] = { kind: "file", executable: (info.mode & 0o100) !== 0, sha256 };
    }
  }
  return snapshot;
}

const NOT_CARRIED = { name: "WorkspaceError", code: "CHANGES_NOT_CARRIED" };
const LATIN1_LINE = Buffer.from("na\xefve caf\xe9\n", "latin1");

/** A clone made by plain git keeps its git directory inside: the host's git is told so explicitly. */
function repositoryOf(workTree: string): { gitDirectory: string; workTree: string } {
  return { gitDirectory: path.join(workTree, ".git"), workTree };
}

describe("captureWorkspaceChanges and applyWorkspaceChanges", () => {
  let root: string;
  let origin: string;
  let baseSha: string;
  let otherSha: string;
  let cases = 0;

  /** A clone of the origin at `sha` in a folder of its own, inside a case folder nothing else uses. */
  async function cloneAt(sha: string): Promise<{ workspace: string; around: string }> {
    cases += 1;
    const around = path.join(root, `case-${cases}`);
    await mkdir(around);
    const workspace = path.join(around, "workspace");
    git(around, "clone", "--quiet", origin, workspace);
    git(workspace, "checkout", "--quiet", "--detach", sha);
    return { workspace, around };
  }

  const crafted = (untracked: UntrackedFile[], trackedPatch = ""): WorkspaceChanges => ({
    baseSha,
    trackedPatchBase64: Buffer.from(trackedPatch).toString("base64"),
    untracked,
  });
  const file = (relative: string, content: string, executable = false): UntrackedFile => ({
    path: relative,
    kind: "file",
    base64: Buffer.from(content).toString("base64"),
    executable,
  });

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), "agentforge-changes-test-"));
    origin = path.join(root, "origin");
    await mkdir(path.join(origin, "nested", "deep"), { recursive: true });
    await mkdir(path.join(origin, "old"));
    git(origin, "init", "--quiet", "--initial-branch=main");
    await writeFile(path.join(origin, "keep.txt"), "one\ntwo\nthree\n");
    await writeFile(path.join(origin, "gone.txt"), "bye\n");
    await writeFile(path.join(origin, "old", "only.txt"), "the only file here\n");
    await writeFile(path.join(origin, "run.sh"), "#!/bin/sh\necho hi\n", { mode: 0o644 });
    await writeFile(
      path.join(origin, "image.bin"),
      Buffer.concat([Buffer.from([0, 1, 2, 0, 255]), randomBytes(4096)]),
    );
    await writeFile(path.join(origin, "latin1.txt"), "plain\n");
    await writeFile(path.join(origin, "nested", "deep", "file.txt"), "deep\n");
    await writeFile(path.join(origin, ".gitignore"), "*.log\nbuild/\n");
    await symlink("keep.txt", path.join(origin, "current"));
    git(origin, "add", "--all");
    git(origin, "commit", "--quiet", "-m", "base");
    baseSha = git(origin, "rev-parse", "HEAD");
    await writeFile(path.join(origin, "other.txt"), "a later commit\n");
    git(origin, "add", "--all");
    git(origin, "commit", "--quiet", "-m", "later");
    otherSha = git(origin, "rev-parse", "HEAD");
  });

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it("gives a clone of the same commit the same working tree, leaving ignored files behind", async () => {
    const { workspace: source } = await cloneAt(baseSha);
    // Tracked: an edit, a deletion, a deleted folder, an executable bit, a binary edit, a nested
    // edit, a symbolic link pointed elsewhere, a line that is not UTF-8.
    await writeFile(path.join(source, "keep.txt"), "one\nTWO\nthree\nfour\n");
    await unlink(path.join(source, "gone.txt"));
    await rm(path.join(source, "old"), { recursive: true });
    await chmod(path.join(source, "run.sh"), 0o755);
    await writeFile(
      path.join(source, "image.bin"),
      Buffer.concat([Buffer.from([0, 0, 7]), randomBytes(2048)]),
    );
    await writeFile(path.join(source, "nested", "deep", "file.txt"), "deeper\n");
    await unlink(path.join(source, "current"));
    await symlink("run.sh", path.join(source, "current"));
    await writeFile(path.join(source, "latin1.txt"), Buffer.concat([Buffer.from("plain\n"), LATIN1_LINE]));
    // Untracked: nested folders, an executable, binary bytes, a link; and two ignored files.
    await mkdir(path.join(source, "new", "deeper"), { recursive: true });
    await writeFile(path.join(source, "new", "deeper", "added.txt"), "added\n");
    await writeFile(path.join(source, "tool.sh"), "#!/bin/sh\necho tool\n", { mode: 0o755 });
    await writeFile(path.join(source, "blob.dat"), Buffer.from([0, 159, 146, 150, 0, 255]));
    await symlink("nested/deep/file.txt", path.join(source, "link-to-deep"));
    await writeFile(path.join(source, "debug.log"), "ignored secret-ish log\n");
    await mkdir(path.join(source, "build"));
    await writeFile(path.join(source, "build", "out.js"), "ignored build output\n");

    const changes = await captureWorkspaceChanges(repositoryOf(source), baseSha);
    expect(changes.baseSha).toBe(baseSha);
    expect(changes.untracked.map((entry) => entry.path).sort()).toEqual([
      "blob.dat",
      "link-to-deep",
      "new/deeper/added.txt",
      "tool.sh",
    ]);
    expect(changes.untracked).toContainEqual({
      path: "link-to-deep",
      kind: "symlink",
      target: "nested/deep/file.txt",
    });
    expect(changes.untracked).toContainEqual(expect.objectContaining({ path: "tool.sh", executable: true }));
    const patch = Buffer.from(changes.trackedPatchBase64, "base64");
    expect(patch.includes(LATIN1_LINE)).toBe(true);
    expect(patch.toString("latin1")).toContain("GIT binary patch");

    // Through JSON, as the changes travel in the queue.
    const carried = JSON.parse(JSON.stringify(changes)) as WorkspaceChanges;
    const { workspace: target } = await cloneAt(baseSha);
    await applyWorkspaceChanges(repositoryOf(target), carried);

    const expected = await snapshotTree(source);
    delete expected["debug.log"];
    delete expected[path.join("build", "out.js")];
    const restored = await snapshotTree(target);
    expect(restored).toEqual(expected);
    // Spot checks of what the snapshot compares, so a broken snapshot cannot hide a difference.
    expect(restored["run.sh"]).toEqual(expect.objectContaining({ executable: true }));
    expect(restored["current"]).toEqual({ kind: "symlink", target: "run.sh" });
    expect(restored["gone.txt"]).toBeUndefined();
    expect(existsSync(path.join(target, "debug.log"))).toBe(false);
    expect(existsSync(path.join(target, "build"))).toBe(false);
    expect(await readFile(path.join(target, "latin1.txt"))).toEqual(
      Buffer.concat([Buffer.from("plain\n"), LATIN1_LINE]),
    );
    expect(git(target, "status", "--porcelain")).toBe(git(source, "status", "--porcelain"));
  });

  it("carries nothing from an untouched workspace, and applying nothing changes nothing", async () => {
    const { workspace } = await cloneAt(baseSha);
    const changes = await captureWorkspaceChanges(repositoryOf(workspace), baseSha);
    expect(changes).toEqual({ baseSha, trackedPatchBase64: "", untracked: [] });
    const before = await snapshotTree(workspace);
    await applyWorkspaceChanges(repositoryOf(workspace), changes);
    expect(await snapshotTree(workspace)).toEqual(before);
  });

  it("refuses a checkout of another commit, even where the patch would apply, and changes nothing", async () => {
    const { workspace: source } = await cloneAt(baseSha);
    await writeFile(path.join(source, "keep.txt"), "changed\n");
    await writeFile(path.join(source, "fresh.txt"), "untracked\n");
    const changes = await captureWorkspaceChanges(repositoryOf(source), baseSha);
    const { workspace: elsewhere } = await cloneAt(otherSha);
    const before = await snapshotTree(elsewhere);
    const applying = applyWorkspaceChanges(repositoryOf(elsewhere), changes);
    await expect(applying).rejects.toBeInstanceOf(WorkspaceError);
    await expect(applying).rejects.toMatchObject({
      ...NOT_CARRIED,
      message: expect.stringContaining(`captured against ${baseSha}`),
    });
    expect(await snapshotTree(elsewhere)).toEqual(before);
  });

  it.each([
    ["../escape", "escape"],
    ["a/../../x", "x"],
    ["nested/../../../y", "y"],
  ])("refuses the untracked path %j and writes nothing outside the workspace", async (relative, leaked) => {
    const { workspace, around } = await cloneAt(baseSha);
    await expect(
      applyWorkspaceChanges(repositoryOf(workspace), crafted([file(relative, "out\n")])),
    ).rejects.toMatchObject({
      ...NOT_CARRIED,
      message: expect.stringContaining("outside the workspace"),
    });
    expect(existsSync(path.join(around, leaked))).toBe(false);
    expect(existsSync(path.join(root, leaked))).toBe(false);
    expect(await readdir(around)).toEqual(["workspace"]);
    expect(existsSync(path.join(workspace, "a"))).toBe(false);
  });

  it("refuses an untracked path inside .git, such as a hook", async () => {
    const { workspace } = await cloneAt(baseSha);
    const hook = file(".git/hooks/post-checkout", "#!/bin/sh\ntouch pwned\n", true);
    await expect(applyWorkspaceChanges(repositoryOf(workspace), crafted([hook]))).rejects.toMatchObject(
      NOT_CARRIED,
    );
    expect(existsSync(path.join(workspace, ".git", "hooks", "post-checkout"))).toBe(false);
    const sneaky = file("nested/../.git/config", "[core]\n\tfsmonitor = touch pwned\n");
    const config = await readFile(path.join(workspace, ".git", "config"), "utf8");
    await expect(applyWorkspaceChanges(repositoryOf(workspace), crafted([sneaky]))).rejects.toMatchObject(
      NOT_CARRIED,
    );
    expect(await readFile(path.join(workspace, ".git", "config"), "utf8")).toBe(config);
  });

  it("refuses a file whose parent is a symbolic link restored just before it", async () => {
    const { workspace, around } = await cloneAt(baseSha);
    const outside = path.join(around, "outside");
    await mkdir(outside);
    const changes = crafted([
      { path: "out", kind: "symlink", target: outside },
      file("out/pwned", "written through a link\n"),
    ]);
    await expect(applyWorkspaceChanges(repositoryOf(workspace), changes)).rejects.toMatchObject({
      ...NOT_CARRIED,
      message: expect.stringContaining('"out" is a symbolic link'),
    });
    expect(await readdir(outside)).toEqual([]);
  });

  it("refuses to write over a file or through a link that is already there", async () => {
    const { workspace, around } = await cloneAt(baseSha);
    await expect(
      applyWorkspaceChanges(repositoryOf(workspace), crafted([file("keep.txt", "replaced\n")])),
    ).rejects.toMatchObject(NOT_CARRIED);
    expect(await readFile(path.join(workspace, "keep.txt"), "utf8")).toBe("one\ntwo\nthree\n");

    const victim = path.join(around, "victim.txt");
    const throughLink = crafted([
      { path: "escape-link", kind: "symlink", target: victim },
      file("escape-link", "written through a link\n"),
    ]);
    await expect(applyWorkspaceChanges(repositoryOf(workspace), throughLink)).rejects.toMatchObject(
      NOT_CARRIED,
    );
    expect(existsSync(victim)).toBe(false);
    expect(lstatSync(path.join(workspace, "escape-link")).isSymbolicLink()).toBe(true);
  });

  it("refuses a tracked patch whose path leaves the workspace", async () => {
    const { workspace, around } = await cloneAt(baseSha);
    const patch = [
      "diff --git a/../evil.txt b/../evil.txt",
      "new file mode 100644",
      "--- /dev/null",
      "+++ b/../evil.txt",
      "@@ -0,0 +1 @@",
      "+evil",
      "",
    ].join("\n");
    await expect(applyWorkspaceChanges(repositoryOf(workspace), crafted([], patch))).rejects.toMatchObject(
      NOT_CARRIED,
    );
    expect(existsSync(path.join(around, "evil.txt"))).toBe(false);
  });

  it(`carries up to ${MAX_UNTRACKED_BYTES} bytes of untracked files, counted together, and no more`, async () => {
    const { workspace } = await cloneAt(baseSha);
    const half = MAX_UNTRACKED_BYTES / 2;
    await writeFile(path.join(workspace, "first.dat"), Buffer.alloc(half, 1));
    await writeFile(path.join(workspace, "second.dat"), Buffer.alloc(half, 2));
    // Ignored files are not carried, so they do not count.
    await writeFile(path.join(workspace, "huge.log"), Buffer.alloc(MAX_UNTRACKED_BYTES + 1, 3));
    const atLimit = await captureWorkspaceChanges(repositoryOf(workspace), baseSha);
    expect(atLimit.untracked.map((entry) => entry.path).sort()).toEqual(["first.dat", "second.dat"]);

    await writeFile(path.join(workspace, "second.dat"), Buffer.alloc(half + 1, 2));
    await expect(captureWorkspaceChanges(repositoryOf(workspace), baseSha)).rejects.toMatchObject({
      ...NOT_CARRIED,
      message: expect.stringContaining(`exceed ${MAX_UNTRACKED_BYTES} bytes`),
    });
  });
});
