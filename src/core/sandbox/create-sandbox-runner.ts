import { isPathInside } from "../paths/index.js";
import { realpath } from "node:fs/promises";
import type { CommandOutcome, CommandRunner, CommandRunOptions } from "../tools/tool.js";
import { detectSandbox, type SandboxKind } from "./detect-sandbox.js";
import { findPidsCgroupParent } from "./pids-cgroup.js";
import { getPidsCgroupPool, type PidsCgroupPool } from "./pids-cgroup-pool.js";
import { planSandboxMounts, type SandboxMounts } from "./plan-sandbox-mounts.js";
import { SandboxError } from "./sandbox-error.js";
import { buildSandboxEnvironment, DEFAULT_SANDBOX_PATH } from "./sandbox-environment.js";
import { DEFAULT_SANDBOX_LIMITS, withLimits, type SandboxLimits } from "./sandbox-limits.js";
import {
  readSandboxMode,
  readSetupNetworkMode,
  type SandboxMode,
  type SetupNetworkMode,
} from "./sandbox-mode.js";
import { runSandboxed, type SetupNetworkPlan } from "./run-sandboxed.js";
import { prepareSetupNetwork } from "./prepare-setup-network.js";
import { setupNetworkSearchPath } from "./start-setup-network.js";
import type { SandboxNetwork } from "./build-bwrap-arguments.js";
import { createWarmSandboxes, type WarmSandboxes } from "./create-warm-sandboxes.js";
import { planWorkspaceView } from "./plan-workspace-view.js";
import { canListChildProcesses } from "./list-child-processes.js";

export interface SandboxRunnerOptions {
  /** Defaults to `AGENTFORGE_SANDBOX` from `env`. */
  readonly mode?: SandboxMode;
  readonly env?: NodeJS.ProcessEnv;
  /** The checkout that is writable; `cwd` of each run must be inside it. Defaults to each run's cwd. */
  readonly workspaceRoot?: string;
  /** Host variables the operator lets through by name (credentials are refused). */
  readonly allowEnv?: readonly string[];
  readonly bwrapPath?: string;
  readonly limits?: Partial<SandboxLimits>;
  /** Host folders to show read-only besides the system (e.g. a toolchain outside /usr). */
  readonly extraReadOnlyPaths?: readonly string[];
  /** Host files or folders to hide even though they lie in a mounted folder. */
  readonly hiddenPaths?: readonly string[];
  /**
   * Run network-off commands in a warm sandbox kept per workspace (default true with bwrap): the
   * same isolation, built once instead of per command. Off, every command gets a fresh bwrap.
   */
  readonly reuseSandbox?: boolean;
  /** How network-on (setup) commands reach the network; defaults to `AGENTFORGE_SETUP_NETWORK`. */
  readonly setupNetwork?: SetupNetworkMode;
}

export type SandboxRunOptions = CommandRunOptions;

export interface SandboxRunner extends CommandRunner {
  /** What isolation commands get; doctor and every run report it. */
  readonly sandboxKind: SandboxKind;
  run(command: string, options: SandboxRunOptions): Promise<CommandOutcome>;
  /** Ends the warm sandboxes now; they also end when idle, and with this process. */
  close(): void;
}

/**
 * The only way the harness runs a shell command. With `bwrap` (the default) a command that cannot
 * be sandboxed is refused with a SandboxError; `none` must be chosen explicitly and still gets a
 * clean environment, limits and process-group kill.
 */
export function createSandboxRunner(options: SandboxRunnerOptions = {}): SandboxRunner {
  const env = options.env ?? process.env;
  const mode = options.mode ?? readModeOrThrow(env);
  const setupNetworkMode = options.setupNetwork ?? readSetupNetworkModeOrThrow(env);
  // Looked up on the first network-on command only: most runs never have one.
  let setupNetwork: Promise<SetupNetworkPlan> | undefined;
  const limits: SandboxLimits = { ...DEFAULT_SANDBOX_LIMITS, ...options.limits };
  const allowedNames = options.allowEnv ?? [];
  // Refuse a credential in the allowlist at start-up rather than on the first command.
  buildSandboxEnvironment({ hostEnv: env, path: DEFAULT_SANDBOX_PATH, allowedNames });
  type Prepared = {
    mounts: SandboxMounts;
    pidsCgroups: PidsCgroupPool | undefined;
    warm: WarmSandboxes | undefined;
  };
  let prepared: Promise<Prepared> | undefined;
  let warm: WarmSandboxes | undefined;
  // Looked up once per runner: the mount plan and where process-limit cgroups come from.
  const prepare = (): Promise<Prepared> => {
    prepared ??= (async () => {
      const [mounts, pidsCgroupParent] = await Promise.all([
        planSandboxMounts({
          hostEnv: env,
          basePath: DEFAULT_SANDBOX_PATH,
          ...(options.extraReadOnlyPaths ? { extraReadOnlyPaths: options.extraReadOnlyPaths } : {}),
          ...(options.hiddenPaths ? { hiddenPaths: options.hiddenPaths } : {}),
        }),
        findPidsCgroupParent(),
      ]);
      const pidsCgroups = pidsCgroupParent === undefined ? undefined : getPidsCgroupPool(pidsCgroupParent);
      pidsCgroups?.prepareSpare(limits.maxProcesses);
      const reuse = mode === "bwrap" && options.reuseSandbox !== false && canListChildProcesses();
      warm = reuse ? createWarmSandboxes({ pidsCgroups }) : undefined;
      return { mounts, pidsCgroups, warm };
    })();
    return prepared;
  };

  return {
    sandboxKind: mode,
    async run(command: string, runOptions: SandboxRunOptions): Promise<CommandOutcome> {
      // Independent look-ups, side by side: most are cached, the rest are single syscalls.
      const [bwrapPath, cwd, workspaceRoot, { mounts, pidsCgroups, warm: warmSandboxes }] = await Promise.all(
        [
          mode === "bwrap" ? findBwrapOrThrow(options.bwrapPath, env) : "",
          realpath(runOptions.cwd),
          realpath(runOptions.workspaceRoot ?? options.workspaceRoot ?? runOptions.cwd),
          prepare(),
        ],
      );
      if (!isPathInside(workspaceRoot, cwd)) {
        throw new SandboxError(
          "SANDBOX_BAD_OPTIONS",
          `The folder ${cwd} is outside the workspace ${workspaceRoot}.`,
          "Run commands from a folder inside the workspace.",
        );
      }
      const network = runOptions.network ?? false;
      const networkKind: SandboxNetwork = !network
        ? "none"
        : setupNetworkMode === "host"
          ? "host"
          : "isolated";
      let setupNetworkPlan: SetupNetworkPlan | undefined;
      if (networkKind === "isolated" && mode === "bwrap") {
        setupNetwork ??= prepareSetupNetwork(setupNetworkSearchPath(env));
        // A failed look-up is not remembered: the operator may install what was missing.
        setupNetworkPlan = await setupNetwork.catch((error: unknown) => {
          setupNetwork = undefined;
          throw error;
        });
      }
      const timeoutMs = Math.max(1, Math.min(runOptions.timeoutMs, limits.maxTimeoutMs));
      const maxOutputBytes = Math.min(
        runOptions.maxOutputBytes ?? limits.maxOutputBytes,
        limits.maxOutputBytes,
      );
      const extraEnv = runOptions.env ?? {};
      const workspace = await planWorkspaceView(workspaceRoot, {
        ...(runOptions.readOnlyPaths === undefined ? {} : { readOnlyPaths: runOptions.readOnlyPaths }),
        ...(runOptions.readOnlyWorkspace === undefined
          ? {}
          : { readOnlyWorkspace: runOptions.readOnlyWorkspace }),
      });
      // The setup phase's network-on commands always get a fresh sandbox of their own.
      if (warmSandboxes !== undefined && !network) {
        const outcome = await warmSandboxes.run({
          bwrapPath,
          mounts,
          workspace,
          cwd,
          limits,
          baseEnvironment: buildSandboxEnvironment({ hostEnv: env, path: mounts.path, allowedNames }),
          environment: buildSandboxEnvironment({
            hostEnv: env,
            path: mounts.path,
            allowedNames,
            extra: extraEnv,
          }),
          script: withLimits(command, limits),
          timeoutMs,
          maxOutputBytes,
          ...(runOptions.signal ? { signal: runOptions.signal } : {}),
        });
        if (outcome !== undefined) return outcome;
      }
      return runSandboxed(command, {
        kind: mode,
        bwrapPath,
        mounts,
        workspace,
        cwd,
        network: networkKind,
        ...(setupNetworkPlan ? { setupNetwork: setupNetworkPlan } : {}),
        limits,
        timeoutMs,
        hostEnv: env,
        allowedNames,
        extraEnv,
        maxOutputBytes,
        pidsCgroups,
        ...(runOptions.signal ? { signal: runOptions.signal } : {}),
      });
    },
    close(): void {
      warm?.close();
    },
  };
}

async function findBwrapOrThrow(bwrapPath: string | undefined, env: NodeJS.ProcessEnv): Promise<string> {
  const detection = await detectSandbox({ ...(bwrapPath ? { bwrapPath } : {}), env });
  if (!detection.available || detection.bwrapPath === undefined) {
    throw new SandboxError(
      "SANDBOX_UNAVAILABLE",
      detection.problem ?? "bubblewrap is not available.",
      detection.fix ?? "Install bubblewrap.",
    );
  }
  return detection.bwrapPath;
}

function readSetupNetworkModeOrThrow(env: NodeJS.ProcessEnv): SetupNetworkMode {
  const setupNetwork = readSetupNetworkMode(env);
  if (!setupNetwork.success)
    throw new SandboxError(
      "SANDBOX_BAD_OPTIONS",
      setupNetwork.error,
      'Set AGENTFORGE_SETUP_NETWORK to "isolated" (default) or "host".',
    );
  return setupNetwork.value;
}

function readModeOrThrow(env: NodeJS.ProcessEnv): SandboxMode {
  const mode = readSandboxMode(env);
  if (!mode.success)
    throw new SandboxError(
      "SANDBOX_BAD_OPTIONS",
      mode.error,
      'Set AGENTFORGE_SANDBOX to "bwrap" (default) or "none".',
    );
  return mode.value;
}
