import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { findExecutable } from "./find-executable.js";
import { findPidsCgroupParent } from "./pids-cgroup.js";
import { planSandboxMounts } from "./plan-sandbox-mounts.js";
import { DEFAULT_SANDBOX_PATH } from "./sandbox-environment.js";
import { DEFAULT_SANDBOX_LIMITS } from "./sandbox-limits.js";
import { runSandboxed } from "./run-sandboxed.js";

export type SandboxKind = "bwrap" | "none";

/** How the process count is capped: rlimit (not as root), a pids cgroup (as root), or not at all. */
export type ProcessLimitKind = "rlimit" | "cgroup" | "none";

export interface SandboxDetection {
  readonly available: boolean;
  readonly kind: SandboxKind;
  readonly version?: string;
  readonly bwrapPath?: string;
  readonly processLimit?: ProcessLimitKind;
  readonly problem?: string;
  readonly fix?: string;
}

export interface DetectSandboxOptions {
  /** The bwrap program; looked up on PATH when not given. */
  readonly bwrapPath?: string;
  readonly env?: NodeJS.ProcessEnv;
}

const INSTALL_FIX =
  "Install bubblewrap (Debian/Ubuntu: apt-get install -y bubblewrap), or set AGENTFORGE_SANDBOX=none to run commands without isolation.";
const NAMESPACE_FIX =
  "Allow user namespaces for bubblewrap (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 24.04 also kernel.apparmor_restrict_unprivileged_userns=0; in a container, the docker run flags of docs/deployment.md, which agentforge doctor names), or set AGENTFORGE_SANDBOX=none to run commands without isolation.";

const cache = new Map<string, Promise<SandboxDetection>>();

/** Tries a trivial command under bwrap with the same mounts real commands get; cached per bwrap path. */
export function detectSandbox(options: DetectSandboxOptions = {}): Promise<SandboxDetection> {
  const key = options.bwrapPath ?? "";
  let pending = cache.get(key);
  if (pending === undefined) {
    pending = probe(options);
    cache.set(key, pending);
  }
  return pending;
}

export async function describeProcessLimit(): Promise<ProcessLimitKind> {
  if (process.getuid?.() !== 0) return "rlimit";
  return (await findPidsCgroupParent()) === undefined ? "none" : "cgroup";
}

async function probe(options: DetectSandboxOptions): Promise<SandboxDetection> {
  const env = options.env ?? process.env;
  const bwrapPath = await findExecutable(
    options.bwrapPath ?? "bwrap",
    options.bwrapPath ? undefined : `${env["PATH"] ?? ""}:/usr/bin:/bin`,
  );
  if (bwrapPath === undefined) {
    return {
      available: false,
      kind: "bwrap",
      problem: `bubblewrap (${options.bwrapPath ?? "bwrap"}) was not found.`,
      fix: INSTALL_FIX,
    };
  }
  const { stdout } = await promisify(execFile)(bwrapPath, ["--version"], {
    timeout: 5000,
    env: { PATH: DEFAULT_SANDBOX_PATH },
  });
  const version = stdout.trim().replace(/^bubblewrap\s+/, "");
  const processLimit = await describeProcessLimit();
  const workspace = await mkdtemp(path.join(os.tmpdir(), "agentforge-probe-"));
  try {
    const outcome = await runSandboxed("true", {
      kind: "bwrap",
      bwrapPath,
      mounts: await planSandboxMounts({ hostEnv: env, basePath: DEFAULT_SANDBOX_PATH }),
      workspace: { root: workspace, access: "read-write", readOnlyPaths: [] },
      cwd: workspace,
      network: "none",
      limits: DEFAULT_SANDBOX_LIMITS,
      timeoutMs: 10_000,
      hostEnv: {},
      allowedNames: [],
      extraEnv: {},
      maxOutputBytes: 4096,
      pidsCgroups: undefined,
    });
    if (outcome.exitCode === 0) return { available: true, kind: "bwrap", version, bwrapPath, processLimit };
    const detail =
      outcome.stderr.trim() || (outcome.timedOut ? "timed out" : `exit code ${String(outcome.exitCode)}`);
    return {
      available: false,
      kind: "bwrap",
      version,
      bwrapPath,
      processLimit,
      problem: `bubblewrap ${version} cannot create a sandbox here: ${detail}`,
      fix: NAMESPACE_FIX,
    };
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}

/** Forgets cached probes (tests, doctor --refresh). */
export function clearSandboxDetectionCache(): void {
  cache.clear();
}
