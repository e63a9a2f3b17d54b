import path from "node:path";
import type { ShellWord } from "./shell-word.js";
import { isPathInside } from "../paths/index.js";

/** The folder a command runs in, as far as the command line lets the policy know it. */
export type WorkingDirectory =
  /** One of these absolute folders (several when a `cd` may or may not have run). */
  | { readonly kind: "known"; readonly paths: readonly string[] }
  | { readonly kind: "unknown"; readonly reason: string };

export interface CommandLocation {
  /** Absolute and normalised. */
  readonly workspaceRoot: string;
  readonly cwd: WorkingDirectory;
  /**
   * A redirection of the command line (or of the one running it) that opens a file onto a
   * descriptor, as written: `/dev/fd/N`, `/dev/stdout` and `/dev/stderr` may then lead to it.
   */
  readonly openedFile?: string;
}

export function createCommandLocation(workspaceRoot: string, cwd: string = workspaceRoot): CommandLocation {
  const root = path.resolve(workspaceRoot);
  return { workspaceRoot: root, cwd: { kind: "known", paths: [path.resolve(root, cwd)] } };
}

export function isAtWorkspaceRoot(location: CommandLocation): boolean {
  return (
    location.cwd.kind === "known" && location.cwd.paths.every((folder) => folder === location.workspaceRoot)
  );
}

/** True when `candidate` is `root` or below it, compared as normalised absolute paths (no links followed). */
export function isLexicallyInside(root: string, candidate: string): boolean {
  return isPathInside(root, candidate);
}

/**
 * Where a `cd` leaves the shell. Whether it ran (`cd x || true`, inside an `if`, in a subshell)
 * is not followed, so the folders it may lead to are added to those before it; a `cd` to a
 * folder not provably inside the workspace, or to a computed one, makes the folder unknown.
 */
export function changeDirectory(location: CommandLocation, target: ShellWord | undefined): WorkingDirectory {
  const current = location.cwd;
  if (current.kind === "unknown") {
    return current;
  }
  if (target === undefined) {
    return { kind: "unknown", reason: "a `cd` without a folder went to the home folder" };
  }
  if (target.hasTilde) {
    return { kind: "unknown", reason: `\`cd ${target.source}\` went to the home folder` };
  }
  if (!target.isLiteral || target.value === "-") {
    return { kind: "unknown", reason: `\`cd ${target.source}\` went to a folder computed at run time` };
  }
  const next = current.paths.map((folder) => path.resolve(folder, target.value));
  const outside = next.find((folder) => !isLexicallyInside(location.workspaceRoot, folder));
  if (outside !== undefined) {
    return { kind: "unknown", reason: `\`cd ${target.source}\` left the workspace` };
  }
  return { kind: "known", paths: [...new Set([...current.paths, ...next])] };
}
