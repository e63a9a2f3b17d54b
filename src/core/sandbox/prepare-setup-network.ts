import { lstat, mkdtemp, realpath, writeFile, chmod } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { checkTunDevice, TUN_DEVICE_FIX } from "./check-tun-device.js";
import type { SetupNetworkPlan } from "./run-sandboxed.js";
import { SandboxError } from "./sandbox-error.js";
import {
  findSetupNetworkTools,
  SETUP_NETWORK_RESOLV_CONF,
  setupNetworkSearchPath,
} from "./start-setup-network.js";

/**
 * Everything the isolated setup network needs, found once per runner: the helper programs, and a
 * resolver file naming slirp4netns' DNS, shown where the system looks for /etc/resolv.conf (its
 * target when it is a link, as with systemd-resolved). Missing programs are refused with what to
 * install: the setup phase never silently falls back to the host's network.
 */
export async function prepareSetupNetwork(
  searchPath: string = setupNetworkSearchPath(),
): Promise<SetupNetworkPlan> {
  const tools = await findSetupNetworkTools(searchPath);
  if (!tools.success) {
    throw new SandboxError(
      "SANDBOX_UNAVAILABLE",
      `Setup commands need the network, and the isolated setup network needs ${tools.missing.join(", ")}, which ${tools.missing.length === 1 ? "is" : "are"} not installed.`,
      "Install slirp4netns, iproute2 and util-linux (apt-get install slirp4netns iproute2 util-linux), or set AGENTFORGE_SETUP_NETWORK=host to share the host's network (setup commands can then reach services on the host's loopback).",
    );
  }
  if (process.getuid?.() !== 0) {
    const tun = await checkTunDevice();
    if (!tun.usable)
      throw new SandboxError(
        "SANDBOX_UNAVAILABLE",
        `Setup commands need the network, and the isolated setup network cannot be made: ${tun.reason}.`,
        TUN_DEVICE_FIX,
      );
  }
  const directory = await mkdtemp(path.join(tmpdir(), "agentforge-resolver-"));
  // Readable by the sandbox's user: the folder and file are the harness's, shown read-only.
  await chmod(directory, 0o755);
  const source = path.join(directory, "resolv.conf");
  await writeFile(source, SETUP_NETWORK_RESOLV_CONF, { mode: 0o644 });
  return { tools: tools.value, resolvConf: { source, destination: await resolverLocation() } };
}

async function resolverLocation(): Promise<string> {
  const standard = "/etc/resolv.conf";
  try {
    const info = await lstat(standard);
    if (!info.isSymbolicLink()) return standard;
    return await realpath(standard);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // A dangling link (its target under a hidden /run) or no file: bwrap creates the mount point.
    if (code === "ENOENT") return standard;
    throw error;
  }
}
