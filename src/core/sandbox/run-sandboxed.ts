import { mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { CommandOutcome } from "../tools/tool.js";
import { buildBwrapArguments, type SandboxNetwork } from "./build-bwrap-arguments.js";
import { startSetupNetwork, type SetupNetwork, type SetupNetworkTools } from "./start-setup-network.js";
import type { SandboxKind } from "./detect-sandbox.js";
import { parseBwrapChildPid } from "./parse-bwrap-child-pid.js";
import type { PidsCgroupLease, PidsCgroupPool } from "./pids-cgroup-pool.js";
import type { SandboxMounts } from "./plan-sandbox-mounts.js";
import type { WorkspaceView } from "./plan-workspace-view.js";
import { buildSandboxEnvironment } from "./sandbox-environment.js";
import { withLimits, type SandboxLimits } from "./sandbox-limits.js";
import { SandboxError } from "./sandbox-error.js";
import { spawnCollected, type StartGate } from "./spawn-collected.js";

export interface RunSandboxedOptions {
  readonly kind: SandboxKind;
  readonly bwrapPath: string;
  readonly mounts: SandboxMounts;
  /** The workspace (real path) and what of it is read-only; the command starts in `cwd`, inside it. */
  readonly workspace: WorkspaceView;
  readonly cwd: string;
  readonly network: SandboxNetwork;
  /** Needed when `network` is "isolated". */
  readonly setupNetwork?: SetupNetworkPlan;
  readonly limits: SandboxLimits;
  readonly timeoutMs: number;
  readonly hostEnv: NodeJS.ProcessEnv;
  readonly allowedNames: readonly string[];
  readonly extraEnv: Readonly<Record<string, string>>;
  readonly maxOutputBytes: number;
  /** Set when the harness runs as root: RLIMIT_NPROC does not bind host root, a pids cgroup does. */
  readonly pidsCgroups: PidsCgroupPool | undefined;
  readonly signal?: AbortSignal;
}

/** What an isolated setup network needs: the helper programs and the resolver file to show. */
export interface SetupNetworkPlan {
  readonly tools: SetupNetworkTools;
  readonly resolvConf: { readonly source: string; readonly destination: string };
}

/** The fds bwrap reports on and waits on; spawnCollected's StartGate opens them as pipes. */
const GATE_FDS = { infoFd: 3, blockFd: 4 } as const;

/** Runs one command; /tmp and HOME are private to it and gone afterwards. */
export async function runSandboxed(command: string, options: RunSandboxedOptions): Promise<CommandOutcome> {
  const cleanups: Array<() => Promise<void>> = [];
  let lease: PidsCgroupLease | undefined;
  let network: SetupNetwork | undefined;
  try {
    const inner = ["bash", "--noprofile", "--norc", "-c", withLimits(command, options.limits)];
    let file: string;
    let args: string[];
    let environment: Record<string, string>;
    let gate: StartGate | undefined;
    if (options.kind === "bwrap") {
      environment = buildSandboxEnvironment({
        hostEnv: options.hostEnv,
        path: options.mounts.path,
        allowedNames: options.allowedNames,
        extra: options.extraEnv,
      });
      lease = await options.pidsCgroups?.acquire(options.limits.maxProcesses);
      const admitted = lease;
      const steps: Array<(sandboxPid: number, spawnedPid: number) => void | Promise<void>> = [];
      const asRoot = process.getuid?.() === 0;
      if (admitted !== undefined) steps.push((sandboxPid) => admitted.admit(sandboxPid));
      const plan = options.setupNetwork;
      if (options.network === "isolated") {
        if (plan === undefined)
          throw new SandboxError(
            "SANDBOX_BAD_OPTIONS",
            "An isolated network was asked for without its helper programs.",
            "Pass the setup network plan (createSandboxRunner does).",
          );
        // Before the command runs: it must never see the network half made.
        steps.push(async (sandboxPid, spawnedPid) => {
          try {
            network = asRoot
              ? await startSetupNetwork(sandboxPid, plan.tools)
              : await startSetupNetwork(spawnedPid, plan.tools, { joinUserNamespace: true });
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code === "ESRCH") throw error;
            throw new SandboxError(
              "SANDBOX_UNAVAILABLE",
              error instanceof Error ? error.message : String(error),
              "Check that slirp4netns, nsenter and ip work on this machine (agentforge doctor), or set AGENTFORGE_SETUP_NETWORK=host to share the host's network.",
              { cause: error },
            );
          }
        });
      }
      if (steps.length > 0) gate = gateSandboxStart(steps);
      file = options.bwrapPath;
      args = buildBwrapArguments({
        mounts: options.mounts,
        workspace: options.workspace,
        cwd: options.cwd,
        tmpBytes: options.limits.maxTmpBytes,
        network: options.network,
        ...(options.network === "isolated" && plan ? { resolvConf: plan.resolvConf } : {}),
        environment,
        command: inner,
        ...(gate ? { gateFds: GATE_FDS } : {}),
      });
      if (options.network === "isolated" && plan && !asRoot) {
        // Not root, the network namespace a helper may join must be this user's own: `unshare`
        // makes it (with a user namespace) and bwrap, inside, keeps it (--share-net).
        const keepNetwork = args.indexOf("--unshare-all") + 1;
        args = [
          "--user",
          "--map-root-user",
          "--net",
          "--",
          file,
          ...args.slice(0, keepNetwork),
          "--share-net",
          ...args.slice(keepNetwork),
        ];
        file = plan.tools.unshare;
      }
    } else {
      if (options.workspace.access === "read-only") {
        // Without mount namespaces nothing but the policy would stand between a command and the
        // workspace; a read-only session promises the kernel's refusal, so it runs no command.
        throw new SandboxError(
          "SANDBOX_UNAVAILABLE",
          "This session is read-only, and without bubblewrap (AGENTFORGE_SANDBOX=none) nothing can mount the workspace read-only for a command, so commands are refused here.",
          "Install bubblewrap (apt-get install -y bubblewrap) and unset AGENTFORGE_SANDBOX, or work with the file tools.",
        );
      }
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
      lease = await options.pidsCgroups?.acquire(options.limits.maxProcesses);
      if (lease !== undefined) {
        // No bwrap to hold the start here: the shell joins the cgroup itself before exec, so no fork escapes.
        args = ["-c", 'echo $$ > "$0" && exec "$@"', lease.cgroup.procsFile, file, ...args];
        file = "/bin/sh";
      }
    }
    // bwrap's own environment is visible inside as /proc/1/environ, so it gets the clean one too.
    return await spawnCollected(file, args, {
      cwd: options.cwd,
      env: environment,
      timeoutMs: options.timeoutMs,
      maxOutputBytes: options.maxOutputBytes,
      killAfterOutputBytes: options.limits.killAfterOutputBytes,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(gate ? { gate } : {}),
    });
  } finally {
    network?.stop();
    lease?.release();
    for (const cleanup of cleanups.reverse()) await cleanup();
  }
}

/**
 * bwrap's first process inside the namespaces waits on the block fd before it forks the command,
 * so moving it into the cgroup then puts every process of the command under the limit. The outer
 * bwrap stays outside: it only waits for the sandbox and forks nothing. Other work that must be
 * done before the command starts (network set-up) can be added as further steps.
 */
function gateSandboxStart(
  steps: ReadonlyArray<(sandboxPid: number, spawnedPid: number) => void | Promise<void>>,
): StartGate {
  return {
    async admit(report: string, spawnedPid: number): Promise<boolean> {
      // An empty report means bwrap failed before it made the sandbox: nothing waits, nothing to admit.
      if (report.trim() === "") return false;
      const childPid = parseBwrapChildPid(report);
      if (!childPid.success)
        throw new SandboxError(
          "SANDBOX_UNAVAILABLE",
          `The sandbox could not be prepared before its command: ${childPid.error}`,
          "Use a bubblewrap version that supports --info-fd and --block-fd (0.1.8 or later).",
        );
      for (const step of steps) {
        try {
          await step(childPid.value, spawnedPid);
        } catch (error) {
          // ESRCH: bwrap's setup failed and the process is gone; its own error reaches the outcome.
          if ((error as NodeJS.ErrnoException).code === "ESRCH") return false;
          throw error;
        }
      }
      return true;
    },
  };
}
