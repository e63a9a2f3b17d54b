import { mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { CommandOutcome } from "../tools/tool.js";
import { buildBwrapArguments } from "./build-bwrap-arguments.js";
import type { SandboxKind } from "./detect-sandbox.js";
import { findGitProtection } from "./git-protected-paths.js";
import { createPidsCgroup, type PidsCgroup } from "./pids-cgroup.js";
import type { SandboxMounts } from "./plan-sandbox-mounts.js";
import { buildSandboxEnvironment } from "./sandbox-environment.js";
import { withLimits, type SandboxLimits } from "./sandbox-limits.js";
import { spawnCollected } from "./spawn-collected.js";

export interface RunSandboxedOptions {
  readonly kind: SandboxKind;
  readonly bwrapPath: string;
  readonly mounts: SandboxMounts;
  /** Real paths: the workspace root and the folder the command starts in. */
  readonly workspaceRoot: string;
  readonly cwd: string;
  readonly network: boolean;
  readonly limits: SandboxLimits;
  readonly timeoutMs: number;
  readonly hostEnv: NodeJS.ProcessEnv;
  readonly allowedNames: readonly string[];
  readonly extraEnv: Readonly<Record<string, string>>;
  readonly maxOutputBytes: number;
  /** Set when the harness runs as root: RLIMIT_NPROC does not bind host root, a pids cgroup does. */
  readonly pidsCgroupParent: string | undefined;
  readonly signal?: AbortSignal;
}

/** Runs one command; /tmp and HOME are private to it and gone afterwards. */
export async function runSandboxed(command: string, options: RunSandboxedOptions): Promise<CommandOutcome> {
  const cleanups: Array<() => Promise<void>> = [];
  try {
    const inner = ["bash", "--noprofile", "--norc", "-c", withLimits(command, options.limits)];
    let file: string;
    let args: string[];
    let environment: Record<string, string>;
    if (options.kind === "bwrap") {
      environment = buildSandboxEnvironment({
        hostEnv: options.hostEnv,
        path: options.mounts.path,
        allowedNames: options.allowedNames,
        extra: options.extraEnv,
      });
      const git = await findGitProtection(options.workspaceRoot);
      file = options.bwrapPath;
      args = buildBwrapArguments({
        mounts: options.mounts,
        workspaceRoot: options.workspaceRoot,
        cwd: options.cwd,
        tmpBytes: options.limits.maxTmpBytes,
        git,
        network: options.network,
        environment,
        command: inner,
      });
    } else {
      // Without namespaces the private /tmp and HOME are host folders, removed after the run.
      const runDirectory = await mkdtemp(path.join(os.tmpdir(), "agentforge-sandbox-"));
      cleanups.push(() => rm(runDirectory, { recursive: true, force: true }));
      const home = path.join(runDirectory, "home");
      const tmp = path.join(runDirectory, "tmp");
      await mkdir(home);
      await mkdir(tmp);
      environment = buildSandboxEnvironment({
        hostEnv: options.hostEnv,
        path: options.hostEnv["PATH"] ?? options.mounts.path,
        allowedNames: options.allowedNames,
        extra: options.extraEnv,
        home,
        tmp,
      });
      [file, ...args] = inner as [string, ...string[]];
    }
    if (options.pidsCgroupParent !== undefined) {
      const cgroup: PidsCgroup = await createPidsCgroup(
        options.pidsCgroupParent,
        options.limits.maxProcesses,
      );
      cleanups.push(() => cgroup.dispose());
      // Join the cgroup before exec so not a single fork happens outside it.
      args = ["-c", 'echo $$ > "$0" && exec "$@"', cgroup.procsFile, file, ...args];
      file = "/bin/sh";
    }
    // bwrap's own environment is visible inside as /proc/1/environ, so it gets the clean one too.
    return await spawnCollected(file, args, {
      cwd: options.cwd,
      env: environment,
      timeoutMs: options.timeoutMs,
      maxOutputBytes: options.maxOutputBytes,
      killAfterOutputBytes: options.limits.killAfterOutputBytes,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup();
  }
}
