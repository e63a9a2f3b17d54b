import { realpath } from "node:fs/promises";
import path from "node:path";
import type { CommandOutcome, CommandRunner, CommandRunOptions } from "../tools/tool.js";
import { detectSandbox, type SandboxKind } from "./detect-sandbox.js";
import { findPidsCgroupParent } from "./pids-cgroup.js";
import { planSandboxMounts, type SandboxMounts } from "./plan-sandbox-mounts.js";
import { SandboxError } from "./sandbox-error.js";
import { buildSandboxEnvironment, DEFAULT_SANDBOX_PATH } from "./sandbox-environment.js";
import { DEFAULT_SANDBOX_LIMITS, type SandboxLimits } from "./sandbox-limits.js";
import { readSandboxMode, type SandboxMode } from "./sandbox-mode.js";
import { runSandboxed } from "./run-sandboxed.js";

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
}

export type SandboxRunOptions = CommandRunOptions;

export interface SandboxRunner extends CommandRunner {
  /** What isolation commands get; doctor and every run report it. */
  readonly sandboxKind: SandboxKind;
  run(command: string, options: SandboxRunOptions): Promise<CommandOutcome>;
}

function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}

/**
 * The only way the harness runs a shell command. With `bwrap` (the default) a command that cannot
 * be sandboxed is refused with a SandboxError; `none` must be chosen explicitly and still gets a
 * clean environment, limits and process-group kill.
 */
export function createSandboxRunner(options: SandboxRunnerOptions = {}): SandboxRunner {
  const env = options.env ?? process.env;
  const mode = options.mode ?? readModeOrThrow(env);
  const limits: SandboxLimits = { ...DEFAULT_SANDBOX_LIMITS, ...options.limits };
  const allowedNames = options.allowEnv ?? [];
  // Refuse a credential in the allowlist at start-up rather than on the first command.
  buildSandboxEnvironment({ hostEnv: env, path: DEFAULT_SANDBOX_PATH, allowedNames });
  let prepared: Promise<{ mounts: SandboxMounts; pidsCgroupParent: string | undefined }> | undefined;
  const prepare = (): Promise<{ mounts: SandboxMounts; pidsCgroupParent: string | undefined }> => {
    prepared ??= (async () => ({
      mounts: await planSandboxMounts({
        hostEnv: env,
        basePath: DEFAULT_SANDBOX_PATH,
        ...(options.extraReadOnlyPaths ? { extraReadOnlyPaths: options.extraReadOnlyPaths } : {}),
        ...(options.hiddenPaths ? { hiddenPaths: options.hiddenPaths } : {}),
      }),
      pidsCgroupParent: await findPidsCgroupParent(),
    }))();
    return prepared;
  };

  return {
    sandboxKind: mode,
    async run(command: string, runOptions: SandboxRunOptions): Promise<CommandOutcome> {
      let bwrapPath = "";
      if (mode === "bwrap") {
        const detection = await detectSandbox({
          ...(options.bwrapPath ? { bwrapPath: options.bwrapPath } : {}),
          env,
        });
        if (!detection.available || detection.bwrapPath === undefined) {
          throw new SandboxError(
            "SANDBOX_UNAVAILABLE",
            detection.problem ?? "bubblewrap is not available.",
            detection.fix ?? "Install bubblewrap.",
          );
        }
        bwrapPath = detection.bwrapPath;
      }
      const cwd = await realpath(runOptions.cwd);
      const workspaceRoot = await realpath(
        runOptions.workspaceRoot ?? options.workspaceRoot ?? runOptions.cwd,
      );
      if (!isInside(workspaceRoot, cwd)) {
        throw new SandboxError(
          "SANDBOX_BAD_OPTIONS",
          `The folder ${cwd} is outside the workspace ${workspaceRoot}.`,
          "Run commands from a folder inside the workspace.",
        );
      }
      const { mounts, pidsCgroupParent } = await prepare();
      return runSandboxed(command, {
        kind: mode,
        bwrapPath,
        mounts,
        workspaceRoot,
        cwd,
        network: runOptions.network ?? false,
        limits,
        timeoutMs: Math.max(1, Math.min(runOptions.timeoutMs, limits.maxTimeoutMs)),
        hostEnv: env,
        allowedNames,
        extraEnv: runOptions.env ?? {},
        maxOutputBytes: Math.min(runOptions.maxOutputBytes ?? limits.maxOutputBytes, limits.maxOutputBytes),
        pidsCgroupParent,
        ...(runOptions.signal ? { signal: runOptions.signal } : {}),
      });
    },
  };
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
