import { access, constants, readFile } from "node:fs/promises";
import { runHostGit } from "../git/run-host-git.js";
import { loadOperatorConfig } from "../config/load-operator-config.js";
import { ensurePrivateDir, resolveDataDir } from "../persistence/resolve-data-dir.js";
import { detectSandbox } from "../sandbox/detect-sandbox.js";
import { canListChildProcesses } from "../sandbox/list-child-processes.js";
import { readSandboxMode, readSetupNetworkMode } from "../sandbox/sandbox-mode.js";
import { checkTunDevice, TUN_DEVICE_FIX } from "../sandbox/check-tun-device.js";
import { findSetupNetworkTools, setupNetworkSearchPath } from "../sandbox/start-setup-network.js";
import { checkModel } from "./check-model.js";
import type { DoctorCheck } from "./doctor-check.js";

export type { DoctorCheck } from "./doctor-check.js";

/** What the checks read of the machine beyond the environment; tests pass their own. */
export interface DoctorProbes {
  /** Whether the kernel lists a process's children in /proc, which the warm sandbox needs. */
  readonly canListChildProcesses?: () => boolean;
  /** Reads a file of /proc/sys (the user-namespace switches). */
  readonly readKernelSetting?: (path: string) => Promise<string | null>;
}

async function readKernelSetting(file: string): Promise<string | null> {
  try {
    return (await readFile(file, "utf8")).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/**
 * What `agentforge doctor` checks, each for real: git runs, user namespaces are allowed, one
 * command runs in a sandbox, the setup network's tools, the model endpoint answers (the run's own
 * probe, or a one-token request) and what a run will use, the operator config parses, the data
 * dir is writable, Node is new enough.
 */
export async function runDoctorChecks(
  env: NodeJS.ProcessEnv = process.env,
  probes: DoctorProbes = {},
): Promise<DoctorCheck[]> {
  const [git, namespaces, sandbox, setupNetwork, model, config, dataDir] = await Promise.all([
    checkGit(),
    checkUserNamespaces(probes.readKernelSetting ?? readKernelSetting),
    checkSandbox(env, probes.canListChildProcesses ?? canListChildProcesses),
    checkSetupNetwork(env),
    checkModel(env),
    checkConfig(env),
    checkDataDir(env),
  ]);
  return [checkNode(), git, namespaces, sandbox, setupNetwork, model, config, dataDir];
}

const NAMESPACES_FIX =
  "Allow unprivileged user namespaces: sysctl -w user.max_user_namespaces=15000 kernel.unprivileged_userns_clone=1 (Ubuntu 24.04: also kernel.apparmor_restrict_unprivileged_userns=0); in Docker see docs/deployment.md.";

/** bubblewrap builds its sandbox in a user namespace: these kernel switches turn them off. */
async function checkUserNamespaces(read: (path: string) => Promise<string | null>): Promise<DoctorCheck> {
  const [max, clone, apparmor] = await Promise.all([
    read("/proc/sys/user/max_user_namespaces"),
    read("/proc/sys/kernel/unprivileged_userns_clone"),
    read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns"),
  ]);
  const off: string[] = [];
  if (max === "0") off.push("user.max_user_namespaces=0");
  if (clone === "0") off.push("kernel.unprivileged_userns_clone=0");
  if (apparmor === "1") off.push("kernel.apparmor_restrict_unprivileged_userns=1");
  if (off.length > 0 && process.getuid?.() !== 0)
    return {
      name: "user namespaces",
      status: "problem",
      detail: `turned off (${off.join(", ")}): bubblewrap cannot build a sandbox`,
      fix: NAMESPACES_FIX,
    };
  if (off.length > 0)
    return {
      name: "user namespaces",
      status: "warning",
      detail: `${off.join(", ")}: allowed for root only; a worker not run as root cannot sandbox`,
      fix: NAMESPACES_FIX,
    };
  return {
    name: "user namespaces",
    status: "ok",
    detail: max === null ? "no limit the kernel reports" : `allowed (user.max_user_namespaces=${max})`,
  };
}

function checkNode(): DoctorCheck {
  const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
  const isSupported = major > 20 || (major === 20 && minor >= 18);
  return isSupported
    ? { name: "node", status: "ok", detail: `Node ${process.versions.node}` }
    : {
        name: "node",
        status: "problem",
        detail: `Node ${process.versions.node} is too old`,
        fix: "Install Node 20.18 or newer.",
      };
}

// git is probed directly: doctor must work even when the sandbox does not.
async function checkGit(): Promise<DoctorCheck> {
  try {
    const { stdout } = await runHostGit(null, ["--version"], { timeoutMs: 10_000 });
    return { name: "git", status: "ok", detail: stdout.trim() };
  } catch (error) {
    return {
      name: "git",
      status: "problem",
      detail: `git cannot run (${error instanceof Error ? error.message : String(error)})`,
      fix: "Install git (Debian/Ubuntu: apt-get install -y git).",
    };
  }
}

async function checkSandbox(env: NodeJS.ProcessEnv, listsChildren: () => boolean): Promise<DoctorCheck> {
  const mode = readSandboxMode(env);
  if (!mode.success)
    return {
      name: "sandbox",
      status: "problem",
      detail: mode.error,
      fix: "Set AGENTFORGE_SANDBOX to bwrap or none.",
    };
  if (mode.value === "none") {
    return {
      name: "sandbox",
      status: "warning",
      detail: "AGENTFORGE_SANDBOX=none: shell commands run WITHOUT isolation",
      fix: "Unset AGENTFORGE_SANDBOX and install bubblewrap to sandbox commands.",
    };
  }
  const detection = await detectSandbox({ env });
  if (!detection.available) {
    return {
      name: "sandbox",
      status: "problem",
      detail: `bubblewrap cannot run: ${detection.problem ?? "unknown"}; shell commands will be refused`,
      ...(detection.fix ? { fix: detection.fix } : {}),
    };
  }
  const described =
    `bubblewrap ${detection.version ?? ""} (process limit: ${detection.processLimit ?? "unknown"})`.trim();
  if (!listsChildren()) {
    // Commands still run, each in a fresh sandbox: safe, but about 15 ms slower a command.
    return {
      name: "sandbox",
      status: "warning",
      detail: `${described}; warm sandboxes are off: this kernel does not list child processes in /proc (CONFIG_PROC_CHILDREN), so every command starts a fresh sandbox`,
      fix: "Run workers on a kernel built with CONFIG_PROC_CHILDREN (most distribution kernels are).",
    };
  }
  return {
    name: "sandbox",
    status: "ok",
    detail: `${described}; a command ran in a sandbox; warm sandboxes on`,
  };
}

async function checkConfig(env: NodeJS.ProcessEnv): Promise<DoctorCheck> {
  const loaded = await loadOperatorConfig(env.AGENTFORGE_CONFIG);
  if (!loaded.success)
    return {
      name: "config",
      status: "problem",
      detail: loaded.error,
      fix: "Fix the key named above in the operator config.",
    };
  return {
    name: "config",
    status: "ok",
    detail: loaded.path ? `${loaded.path} (digest ${loaded.digest})` : "no AGENTFORGE_CONFIG: defaults",
  };
}

async function checkDataDir(env: NodeJS.ProcessEnv): Promise<DoctorCheck> {
  const dir = resolveDataDir(env);
  try {
    await ensurePrivateDir(dir);
    await access(dir, constants.W_OK);
    return { name: "data dir", status: "ok", detail: dir };
  } catch (error) {
    return {
      name: "data dir",
      status: "problem",
      detail: `${dir} is not writable (${error instanceof Error ? error.message : String(error)})`,
      fix: "Set AGENTFORGE_DATA_DIR to a writable folder.",
    };
  }
}

/** The setup phase's network: its own, unless the operator chose the host's. */
async function checkSetupNetwork(env: NodeJS.ProcessEnv): Promise<DoctorCheck> {
  const mode = readSetupNetworkMode(env);
  if (!mode.success)
    return {
      name: "setup network",
      status: "problem",
      detail: mode.error,
      fix: "Set AGENTFORGE_SETUP_NETWORK to isolated or host.",
    };
  if (mode.value === "host")
    return {
      name: "setup network",
      status: "warning",
      detail:
        "AGENTFORGE_SETUP_NETWORK=host: setup commands share the host's network, loopback services included",
      fix: "Unset AGENTFORGE_SETUP_NETWORK and install slirp4netns, iproute2 and util-linux.",
    };
  const tools = await findSetupNetworkTools(setupNetworkSearchPath(env));
  if (!tools.success)
    return {
      name: "setup network",
      status: "warning",
      detail: `missing ${tools.missing.join(", ")}: setup commands that need the network will be refused`,
      fix: "apt-get install -y slirp4netns iproute2 util-linux (or set AGENTFORGE_SETUP_NETWORK=host).",
    };
  if (process.getuid?.() !== 0) {
    const tun = await checkTunDevice();
    if (!tun.usable)
      return {
        name: "setup network",
        status: "warning",
        detail: `${tun.reason}: setup commands that need the network will be refused`,
        fix: TUN_DEVICE_FIX,
      };
  }
  return {
    name: "setup network",
    status: "ok",
    detail: "isolated: slirp4netns, without the host's loopback, addresses or link-local metadata",
  };
}
