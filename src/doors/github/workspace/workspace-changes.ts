import { lstat, mkdir, mkdtemp, readFile, readlink, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { HostRepository } from "../../../core/git/index.js";
import { runHostGit } from "../../../core/git/index.js";
import { hasGitSegment, isPathInside } from "../../../core/paths/index.js";
import { WorkspaceError } from "./workspace-error.js";

/**
 * What an agent changed in a workspace, relative to the commit it was made from, as data that can
 * travel to another machine: a binary `git diff` of the tracked files (edits, deletions, modes)
 * and the untracked files that .gitignore does not hide, carried whole. Applied to a fresh checkout
 * of the same commit it gives back the same working tree, so a run can continue elsewhere.
 */
export interface WorkspaceChanges {
  readonly baseSha: string;
  /**
   * `git diff --binary <baseSha>` of the working tree, base64: a text file need not be UTF-8, and
   * the patch must keep its bytes. Empty when nothing tracked changed.
   */
  readonly trackedPatchBase64: string;
  readonly untracked: readonly UntrackedFile[];
}

export type UntrackedFile =
  | { readonly path: string; readonly kind: "file"; readonly base64: string; readonly executable: boolean }
  | { readonly path: string; readonly kind: "symlink"; readonly target: string };

/** Untracked content larger than this is not carried: the run then starts over elsewhere. */
export const MAX_UNTRACKED_BYTES = 16 * 1024 * 1024;

type WorkTreeRepository = HostRepository & { readonly workTree: string };

export async function captureWorkspaceChanges(
  repository: WorkTreeRepository,
  baseSha: string,
  options: { readonly hostEnv?: NodeJS.ProcessEnv } = {},
): Promise<WorkspaceChanges> {
  const workspaceRoot = repository.workTree;
  const git = async (args: readonly string[]): Promise<string> =>
    (await runHostGit(repository, args, options.hostEnv ? { hostEnv: options.hostEnv } : {})).stdout;
  const trackedPatch = await withScratchFile(async (patchFile) => {
    // No external diff or text conversion: the patch must be exact, and nothing in the repository
    // runs. Written to a file, not read from stdout, which would be decoded as UTF-8.
    await git([
      "diff",
      "--binary",
      "--no-ext-diff",
      "--no-textconv",
      // A nested repository's config is the sandbox's: git is not started inside one. Their
      // content is not carried (the untracked listing shows them as folders, skipped below).
      "--ignore-submodules=all",
      `--output=${patchFile}`,
      baseSha,
      "--",
    ]);
    return readFile(patchFile);
  });
  const listed = await git(["ls-files", "--others", "--exclude-standard", "-z"]);
  const untracked: UntrackedFile[] = [];
  let total = 0;
  for (const relative of listed.split("\0").filter((name) => name !== "")) {
    const absolute = path.join(workspaceRoot, relative);
    const info = await lstat(absolute);
    if (info.isSymbolicLink()) {
      untracked.push({ path: relative, kind: "symlink", target: await readlink(absolute) });
      continue;
    }
    if (!info.isFile()) continue;
    total += info.size;
    if (total > MAX_UNTRACKED_BYTES) {
      throw new WorkspaceError(
        "CHANGES_NOT_CARRIED",
        `the workspace's untracked files exceed ${MAX_UNTRACKED_BYTES} bytes; they are not carried to another worker`,
      );
    }
    untracked.push({
      path: relative,
      kind: "file",
      base64: (await readFile(absolute)).toString("base64"),
      executable: (info.mode & 0o100) !== 0,
    });
  }
  return { baseSha, trackedPatchBase64: trackedPatch.toString("base64"), untracked };
}

/**
 * A relative path that stays inside the workspace and out of `.git`, with no symbolic link among
 * its parents (a link restored earlier must not carry a later file out of the workspace).
 */
async function safeTarget(workspaceRoot: string, relative: string): Promise<string> {
  const target = path.resolve(workspaceRoot, relative);
  const fromRoot = path.relative(workspaceRoot, target);
  const parts = fromRoot.split(path.sep);
  if (fromRoot === "" || !isPathInside(workspaceRoot, target) || hasGitSegment(fromRoot)) {
    throw new WorkspaceError(
      "CHANGES_NOT_CARRIED",
      `refusing to restore ${JSON.stringify(relative)}: outside the workspace`,
    );
  }
  let parent = workspaceRoot;
  for (const part of parts.slice(0, -1)) {
    parent = path.join(parent, part);
    const info = await lstat(parent).catch((error: unknown) => {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw error;
    });
    if (info?.isSymbolicLink() === true) {
      throw new WorkspaceError(
        "CHANGES_NOT_CARRIED",
        `refusing to restore ${JSON.stringify(relative)}: ${JSON.stringify(path.relative(workspaceRoot, parent))} is a symbolic link`,
      );
    }
  }
  return target;
}

/** Applies changes captured by captureWorkspaceChanges to a fresh checkout of `changes.baseSha`. */
export async function applyWorkspaceChanges(
  repository: WorkTreeRepository,
  changes: WorkspaceChanges,
  options: { readonly hostEnv?: NodeJS.ProcessEnv } = {},
): Promise<void> {
  const workspaceRoot = repository.workTree;
  const git = async (args: readonly string[]): Promise<string> =>
    (await runHostGit(repository, args, options.hostEnv ? { hostEnv: options.hostEnv } : {})).stdout;
  const head = (await git(["rev-parse", "HEAD"])).trim();
  if (head !== changes.baseSha) {
    throw new WorkspaceError(
      "CHANGES_NOT_CARRIED",
      `the workspace is at ${head}, but the changes were captured against ${changes.baseSha}`,
    );
  }
  const patch = Buffer.from(changes.trackedPatchBase64, "base64");
  if (patch.length > 0) {
    await withScratchFile(async (patchFile) => {
      await writeFile(patchFile, patch, { mode: 0o600 });
      // Paths in the patch are checked by git apply itself: none may leave the work tree, pass
      // through a symbolic link or touch .git.
      await git(["apply", "--binary", "--whitespace=nowarn", patchFile]).catch((error: unknown) => {
        throw new WorkspaceError("CHANGES_NOT_CARRIED", "the tracked changes do not apply to the checkout", {
          cause: error,
        });
      });
    });
  }
  for (const file of changes.untracked) {
    const target = await safeTarget(workspaceRoot, file.path);
    try {
      await mkdir(path.dirname(target), { recursive: true });
      if (file.kind === "symlink") await symlink(file.target, target);
      // "wx": never through a file or link that is already there.
      else
        await writeFile(target, Buffer.from(file.base64, "base64"), {
          mode: file.executable ? 0o755 : 0o644,
          flag: "wx",
        });
    } catch (error) {
      throw new WorkspaceError("CHANGES_NOT_CARRIED", `could not restore ${JSON.stringify(file.path)}`, {
        cause: error,
      });
    }
  }
}

/** A file in a private folder outside the workspace (the agent never sees it), removed after use. */
async function withScratchFile<T>(use: (file: string) => Promise<T>): Promise<T> {
  const scratch = await mkdtemp(path.join(tmpdir(), "agentforge-changes-"));
  try {
    return await use(path.join(scratch, "changes.patch"));
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
