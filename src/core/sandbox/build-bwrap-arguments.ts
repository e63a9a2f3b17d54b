import path from "node:path";
import type { SandboxMounts } from "./plan-sandbox-mounts.js";
import type { WorkspaceView } from "./plan-workspace-view.js";
import { SANDBOX_HOME } from "./sandbox-environment.js";

export type SandboxNetwork = "none" | "isolated" | "host";

/** The unprivileged user inside the sandbox (`nobody`). */
export const SANDBOX_UID = 65534;

export interface BwrapInvocation {
  readonly mounts: SandboxMounts;
  readonly workspace: WorkspaceView;
  readonly cwd: string;
  /** Size of the in-memory private /tmp, HOME and /dev/shm, each. */
  readonly tmpBytes: number;
  /**
   * "none": an empty network namespace. "isolated": the same, to be given a user-mode network
   * before the command starts (start-setup-network.ts), with `resolvConf` shown as the resolver.
   * "host": the host's network namespace, only when the operator chose it for the setup phase.
   */
  readonly network: SandboxNetwork;
  /** The resolver file an isolated network needs, and where the system looks for it. */
  readonly resolvConf?: { readonly source: string; readonly destination: string };
  readonly environment: Readonly<Record<string, string>>;
  /** The program and arguments to run inside. */
  readonly command: readonly string[];
  /**
   * bwrap writes the host pid of the sandbox's first process to `infoFd`; with `blockFd` that process
   * also waits for one byte there before it forks or runs anything (see spawnCollected's StartGate).
   */
  readonly gateFds?: { readonly infoFd: number; readonly blockFd?: number };
  /** The command is pid 1 itself instead of a child of bwrap's own init. */
  readonly asPidOne?: boolean;
  /**
   * A file written from `fd` to `path` with mode 0111. A program started from a file its user cannot
   * read is not dumpable, so other processes of the same user can neither ptrace it nor read its memory.
   */
  readonly executeOnlyFile?: { readonly fd: number; readonly path: string };
}

/**
 * Order matters: bwrap applies mounts in sequence, so the private in-memory /tmp comes before the workspace
 * (which may live under the host's /tmp) and the read-only git binds come after the workspace.
 */
export function buildBwrapArguments(invocation: BwrapInvocation): string[] {
  const args = [
    "--unshare-all",
    "--unshare-user",
    // No nested user namespaces: they would give the command a full capability set to probe the kernel with.
    "--disable-userns",
    ...(invocation.network === "host" ? ["--share-net"] : []),
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
    ...(invocation.asPidOne ? ["--as-pid-1"] : []),
    ...(invocation.gateFds ? ["--info-fd", String(invocation.gateFds.infoFd)] : []),
    ...(invocation.gateFds?.blockFd !== undefined ? ["--block-fd", String(invocation.gateFds.blockFd)] : []),
    "--ro-bind",
    "/usr",
    "/usr",
    "--ro-bind",
    "/etc",
    "/etc",
    ...(invocation.network === "isolated" && invocation.resolvConf
      ? ["--ro-bind", invocation.resolvConf.source, invocation.resolvConf.destination]
      : []),
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
    "/dev/shm",
    "--size",
    String(invocation.tmpBytes),
    "--tmpfs",
    "/tmp",
    "--dir",
    "/var",
    "--symlink",
    "../tmp",
    "/var/tmp",
    ...(invocation.executeOnlyFile
      ? [
          "--dir",
          path.posix.dirname(invocation.executeOnlyFile.path),
          "--perms",
          "0111",
          "--file",
          String(invocation.executeOnlyFile.fd),
          invocation.executeOnlyFile.path,
        ]
      : []),
    "--perms",
    "0700",
    "--size",
    String(invocation.tmpBytes),
    "--tmpfs",
    SANDBOX_HOME,
    invocation.workspace.access === "read-only" ? "--ro-bind" : "--bind",
    invocation.workspace.root,
    invocation.workspace.root,
  );
  // The workspace's git metadata: read-only, and as mount points not to be renamed or replaced.
  for (const target of invocation.workspace.readOnlyPaths) args.push("--ro-bind", target, target);
  // bwrap builds the root and /dev as tmpfs folders that the sandbox user owns. Read-only, they leave
  // only the scratch folders and the workspace writable: nothing left elsewhere reaches a later command.
  args.push("--remount-ro", "/dev", "--remount-ro", "/", "--chdir", invocation.cwd, "--clearenv");
  for (const [name, value] of Object.entries(invocation.environment)) args.push("--setenv", name, value);
  args.push("--", ...invocation.command);
  return args;
}
