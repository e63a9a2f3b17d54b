import type { GitProtection } from "./git-protected-paths.js";
import type { SandboxMounts } from "./plan-sandbox-mounts.js";
import { SANDBOX_HOME } from "./sandbox-environment.js";

/** The unprivileged user inside the sandbox (`nobody`). */
export const SANDBOX_UID = 65534;

export interface BwrapInvocation {
  readonly mounts: SandboxMounts;
  readonly workspaceRoot: string;
  readonly cwd: string;
  /** Size of the in-memory private /tmp and HOME, each. */
  readonly tmpBytes: number;
  readonly git: GitProtection;
  readonly network: boolean;
  readonly environment: Readonly<Record<string, string>>;
  /** The program and arguments to run inside. */
  readonly command: readonly string[];
}

/**
 * Order matters: bwrap applies mounts in sequence, so the private in-memory /tmp comes before the workspace
 * (which may live under the host's /tmp) and the git re-binds come after the workspace.
 */
export function buildBwrapArguments(invocation: BwrapInvocation): string[] {
  const args = [
    "--unshare-all",
    "--unshare-user",
    // No nested user namespaces: they would give the command a full capability set to probe the kernel with.
    "--disable-userns",
    ...(invocation.network ? ["--share-net"] : []),
    "--uid",
    String(SANDBOX_UID),
    "--gid",
    String(SANDBOX_UID),
    "--hostname",
    "sandbox",
    "--die-with-parent",
    "--new-session",
    "--cap-drop",
    "ALL",
    "--ro-bind",
    "/usr",
    "/usr",
    "--ro-bind",
    "/etc",
    "/etc",
  ];
  for (const entry of invocation.mounts.system) {
    if (entry.kind === "symlink") args.push("--symlink", entry.target, entry.path);
    else args.push("--ro-bind", entry.path, entry.path);
  }
  for (const root of invocation.mounts.toolRoots) args.push("--ro-bind", root, root);
  for (const masked of invocation.mounts.masked) {
    if (masked.isDirectory) args.push("--tmpfs", masked.path, "--remount-ro", masked.path);
    else args.push("--ro-bind", "/dev/null", masked.path);
  }
  args.push(
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    "--size",
    String(invocation.tmpBytes),
    "--tmpfs",
    "/tmp",
    "--dir",
    "/var",
    "--symlink",
    "../tmp",
    "/var/tmp",
    "--perms",
    "0700",
    "--size",
    String(invocation.tmpBytes),
    "--tmpfs",
    SANDBOX_HOME,
    "--bind",
    invocation.workspaceRoot,
    invocation.workspaceRoot,
  );
  const byDepth = (left: string, right: string): number => left.length - right.length;
  for (const directory of [...invocation.git.pinnedDirectories].sort(byDepth))
    args.push("--bind", directory, directory);
  for (const target of [...invocation.git.readOnlyPaths].sort(byDepth))
    args.push("--ro-bind", target, target);
  args.push("--chdir", invocation.cwd, "--clearenv");
  for (const [name, value] of Object.entries(invocation.environment)) args.push("--setenv", name, value);
  args.push("--", ...invocation.command);
  return args;
}
