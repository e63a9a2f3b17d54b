import { access, constants } from "node:fs/promises";
import { runHostGit } from "../git/run-host-git.js";
import { loadOperatorConfig } from "../config/load-operator-config.js";
import { readModelEnvironment } from "../model/read-model-environment.js";
import { ensurePrivateDir, resolveDataDir } from "../persistence/resolve-data-dir.js";
import { detectSandbox } from "../sandbox/detect-sandbox.js";
import { canListChildProcesses } from "../sandbox/list-child-processes.js";
import { readSandboxMode, readSetupNetworkMode } from "../sandbox/sandbox-mode.js";
import { checkTunDevice, TUN_DEVICE_FIX } from "../sandbox/check-tun-device.js";
import { findSetupNetworkTools, setupNetworkSearchPath } from "../sandbox/start-setup-network.js";

export interface DoctorCheck {
  readonly name: string;
  readonly status: "ok" | "warning" | "problem";
  readonly detail: string;
  /** How to fix it, for anything not ok. */
  readonly fix?: string;
}

/** What the checks read of the machine beyond the environment; tests pass their own. */
export interface DoctorProbes {
  /** Whether the kernel lists a process's children in /proc, which the warm sandbox needs. */
  readonly canListChildProcesses?: () => boolean;
}

/** What `agentforge doctor` checks: git, sandbox, model settings, operator config, data dir, Node. */
export async function runDoctorChecks(
  env: NodeJS.ProcessEnv = process.env,
  probes: DoctorProbes = {},
): Promise<DoctorCheck[]> {
  const [git, sandbox, setupNetwork, config, dataDir] = await Promise.all([
    checkGit(),
    checkSandbox(env, probes.canListChildProcesses ?? canListChildProcesses),
    checkSetupNetwork(env),
    checkConfig(env),
    checkDataDir(env),
  ]);
  return [checkNode(), git, sandbox, setupNetwork, checkModel(env), config, dataDir];
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
  return { name: "sandbox", status: "ok", detail: `${described}; warm sandboxes on` };
}

function checkModel(env: NodeJS.ProcessEnv): DoctorCheck {
  const model = readModelEnvironment(env);
  if (!model.success)
    return { name: "model", status: "problem", detail: model.error, fix: "Fix the variable named above." };
  const { apiKey, baseURL } = model.value;
  if (!apiKey && !baseURL) {
    return {
      name: "model",
      status: "problem",
      detail: "no OPENAI_API_KEY and no OPENAI_BASE_URL",
      fix: "Set OPENAI_API_KEY, or OPENAI_BASE_URL for a local OpenAI-compatible server (try `agentforge mock-model`).",
    };
  }
  return {
    name: "model",
    status: "ok",
    detail: `${model.value.model} at ${baseURL ?? "the OpenAI API"}${model.value.fallbackModels.length > 0 ? `; fallbacks ${model.value.fallbackModels.join(", ")}` : ""}`,
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
