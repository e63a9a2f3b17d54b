import { lstatSync, readlinkSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import { errorResult, type ToolResult } from "../tool-result.js";
import { hasGitSegment, isPathInside } from "../../paths/index.js";

export interface WorkspacePath {
  /** Real absolute path: every existing symlink on the way is resolved. */
  readonly absolute: string;
  /** Path relative to the real workspace root, with `/` separators; "." for the root itself. */
  readonly relative: string;
}

export type ResolveWorkspacePathResult =
  | { readonly success: true; readonly value: WorkspacePath }
  | { readonly success: false; readonly error: ToolResult };

export interface ResolveWorkspacePathOptions {
  readonly forWrite: boolean;
}

/** Symlink hops followed by hand before giving up (the kernel's own limit is 40). */
const MAX_LINK_HOPS = 40;

/**
 * Confines a path the model asked for to the workspace, by real path: the check is made on
 * where the kernel would land, not on the text, so `..` walks, absolute paths and symlinks
 * (also dangling ones a write would create through) cannot leave the workspace.
 *
 * A write through a symlink that stays inside the workspace goes to the link's target (the
 * link is kept), because `absolute` is the real path. `.git` is never writable: it holds hooks
 * and config that git would run or obey later, outside any approval.
 *
 * The file-system calls are synchronous: resolving a path only reads metadata the kernel has
 * cached (microseconds), while an asynchronous call is a round trip through libuv's thread pool
 * (about 50–100 µs here, several per path). The signature stays a promise for its callers.
 */
export function resolveWorkspacePath(
  workspaceRoot: string,
  requestedPath: string,
  options: ResolveWorkspacePathOptions,
): ResolveWorkspacePathResult {
  if (requestedPath.includes("\0")) {
    return failure(
      errorResult("INVALID_ARGUMENTS", {
        message: "the path contains a null byte",
        recovery_hint: "Send the path as plain text without control characters.",
        next_actions: ["list_dir ."],
      }),
    );
  }
  // Linux refuses a name over 255 bytes and a path over 4,095: say so instead of failing later.
  const longName = requestedPath.split(/[\\/]/).find((segment) => Buffer.byteLength(segment) > 255);
  if (longName !== undefined || Buffer.byteLength(requestedPath) > 4000) {
    return failure(
      errorResult("INVALID_ARGUMENTS", {
        message:
          longName !== undefined
            ? `a name in the path is ${Buffer.byteLength(longName)} bytes long; the limit is 255`
            : `the path is ${Buffer.byteLength(requestedPath)} bytes long; the limit is 4000`,
        recovery_hint: "Use shorter file and folder names.",
        next_actions: ["list_dir ."],
      }),
    );
  }
  if (options.forWrite && /[\\/]\.?$/.test(requestedPath) && requestedPath.replace(/[\\/]\.?$/, "") !== "") {
    return failure(
      errorResult("INVALID_ARGUMENTS", {
        message: `"${requestedPath}" ends with a slash: it names a folder, not a file to write`,
        recovery_hint: "Name the file to write, e.g. `dir/file.txt`; folders are made as needed.",
        next_actions: ["list_dir ."],
      }),
    );
  }
  const root = realpathSync.native(workspaceRoot);
  const lexical = path.resolve(root, requestedPath === "" ? "." : requestedPath);
  if (!isPathInside(root, lexical)) {
    return failure(outsideWorkspace(requestedPath));
  }
  if (options.forWrite && hasGitSegment(path.relative(root, lexical))) {
    return failure(gitDirectoryDenied(requestedPath));
  }
  const real = realpathAllowingMissing(lexical, 0);
  if (real === undefined) return failure(symlinkLoop(requestedPath));
  if (!isPathInside(root, real)) return failure(outsideWorkspace(requestedPath));
  const relative = toPosix(path.relative(root, real)) || ".";
  if (options.forWrite && hasGitSegment(relative)) {
    return failure(gitDirectoryDenied(requestedPath));
  }
  // `a.txt/` names a folder: the kernel would refuse it (ENOTDIR); so does this.
  if (/[\\/]\.?$/.test(requestedPath) && isExistingNonDirectory(real)) {
    return failure(
      errorResult("NOT_A_DIRECTORY", {
        message: `"${requestedPath}" ends with a slash, but ${relative} is a file, not a folder`,
        recovery_hint: `Name the file without the trailing slash: ${relative}.`,
        next_actions: [`read_file ${relative}`],
      }),
    );
  }
  return { success: true, value: { absolute: real, relative } };
}

function isExistingNonDirectory(absolute: string): boolean {
  try {
    return !statSync(absolute).isDirectory();
  } catch {
    return false;
  }
}

export function toPosix(relativePath: string): string {
  return path.sep === "/" ? relativePath : relativePath.split(path.sep).join("/");
}

/**
 * realpath for a path that may not exist yet: the nearest existing ancestor is resolved and
 * the missing rest appended. A dangling symlink on the way is followed by hand, since a write
 * through it would create its target. Returns undefined on a symlink loop (or more than 40 hops).
 */
function realpathAllowingMissing(target: string, hops: number): string | undefined {
  if (hops > MAX_LINK_HOPS) {
    return undefined;
  }
  try {
    return realpathSync.native(target);
  } catch (error) {
    if (!isMissingError(error)) {
      if (hasCode(error, "ELOOP")) {
        return undefined;
      }
      throw error;
    }
  }
  const parent = path.dirname(target);
  if (parent === target) {
    return target;
  }
  const realParent = realpathAllowingMissing(parent, hops);
  if (realParent === undefined) {
    return undefined;
  }
  const inRealParent = path.join(realParent, path.basename(target));
  const linkTarget = readDanglingLink(inRealParent);
  if (linkTarget === undefined) {
    return inRealParent;
  }
  return realpathAllowingMissing(path.resolve(realParent, linkTarget), hops + 1);
}

function readDanglingLink(candidate: string): string | undefined {
  try {
    const stats = lstatSync(candidate);
    return stats.isSymbolicLink() ? readlinkSync(candidate) : undefined;
  } catch (error) {
    // EINVAL: no longer a link when it was read (replaced meanwhile).
    if (isMissingError(error) || hasCode(error, "EINVAL")) {
      return undefined;
    }
    throw error;
  }
}

export function isMissingError(error: unknown): boolean {
  return hasCode(error, "ENOENT") || hasCode(error, "ENOTDIR");
}

export function hasCode(error: unknown, code: string): boolean {
  return typeof error === "object" && error !== null && "code" in error && error.code === code;
}

function outsideWorkspace(requestedPath: string): ToolResult {
  return errorResult("OUTSIDE_WORKSPACE", {
    message: `"${requestedPath}" is outside the workspace`,
    recovery_hint:
      "Use a path inside the workspace, relative to its root (for example src/index.ts). Paths that leave it with .., absolute paths elsewhere and symlinks that point outside are refused.",
    next_actions: ["list_dir ."],
    recoverable: true,
  });
}

function symlinkLoop(requestedPath: string): ToolResult {
  return errorResult("INVALID_ARGUMENTS", {
    message: `"${requestedPath}" goes through a loop of symbolic links and names no file`,
    recovery_hint: "Use the real path of the file; list_dir shows links as `name -> target`.",
    next_actions: ["list_dir ."],
    recoverable: true,
  });
}

function gitDirectoryDenied(requestedPath: string): ToolResult {
  return errorResult("PERMISSION_DENIED", {
    message: `"${requestedPath}" is inside a .git directory, which is never writable`,
    recovery_hint:
      "Change working-tree files only; git metadata, hooks and config cannot be edited by tools.",
    next_actions: ["list_dir ."],
    recoverable: false,
  });
}

function failure(error: ToolResult): ResolveWorkspacePathResult {
  return { success: false, error };
}
