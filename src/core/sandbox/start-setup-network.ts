import { spawn } from "node:child_process";
import { networkInterfaces } from "node:os";
import type { Readable } from "node:stream";
import { findExecutable } from "./find-executable.js";
import { hostHelperEnvironment } from "./host-helper-environment.js";

/**
 * Network for the setup phase (`npm ci` and the like), without the host's network namespace.
 *
 * The setup command runs in its own empty network namespace, as every sandboxed command does.
 * slirp4netns then gives that namespace a user-mode network: outbound TCP/UDP is made by the
 * slirp4netns process on the host's behalf, and DNS goes to 10.0.2.3. What the command must not
 * reach is cut off before it starts:
 * - the host's loopback (Redis, PostgreSQL, the App's own port): `--disable-host-loopback`;
 * - the host's own addresses, the gateway that stands for the host (10.0.2.2), and link-local
 *   addresses (cloud metadata at 169.254.169.254): `prohibit` routes inside the namespace, set from
 *   outside before the command runs. The command cannot change them: it has no capabilities.
 * Other networks (registries, mirrors, the internet as far as the host reaches) stay open.
 */
export interface SetupNetwork {
  /** Stops the network helper; the namespace goes when the sandbox exits. */
  stop(): void;
}

export interface SetupNetworkTools {
  readonly slirp4netns: string;
  readonly nsenter: string;
  readonly ip: string;
  /** For a harness that is not root: the namespaces are made by `unshare`, around bwrap. */
  readonly unshare: string;
}

/** Where the helpers are looked for: PATH, and the sbin folders a service's PATH often leaves out. */
export function setupNetworkSearchPath(env: NodeJS.ProcessEnv = process.env): string {
  return `${env.PATH ?? ""}:/usr/sbin:/sbin:/usr/bin:/bin`;
}

/** The programs the setup network needs, or the names of those missing. */
export async function findSetupNetworkTools(
  searchPath: string = setupNetworkSearchPath(),
): Promise<
  | { readonly success: true; readonly value: SetupNetworkTools }
  | { readonly success: false; readonly missing: readonly string[] }
> {
  const [slirp4netns, nsenter, ip, unshare] = await Promise.all([
    findExecutable("slirp4netns", searchPath),
    findExecutable("nsenter", searchPath),
    findExecutable("ip", searchPath),
    findExecutable("unshare", searchPath),
  ]);
  if (slirp4netns && nsenter && ip && unshare)
    return { success: true, value: { slirp4netns, nsenter, ip, unshare } };
  const missing: string[] = [];
  if (!slirp4netns) missing.push("slirp4netns");
  if (!nsenter || !unshare) missing.push("nsenter and unshare (util-linux)");
  if (!ip) missing.push("ip (iproute2)");
  return { success: false, missing };
}

/** The resolver the namespace must use: slirp4netns answers DNS there. */
export const SETUP_NETWORK_RESOLV_CONF = "nameserver 10.0.2.3\n";

/** Destinations refused inside the setup namespace, as `ip route` prefixes. */
export function blockedSetupDestinations(): string[] {
  const blocked = new Set(["169.254.0.0/16", "10.0.2.2/32"]);
  for (const addresses of Object.values(networkInterfaces())) {
    for (const address of addresses ?? []) {
      if (address.family === "IPv4" && !address.internal) blocked.add(`${address.address}/32`);
    }
  }
  return [...blocked].sort();
}

const READY_TIMEOUT_MS = 10_000;

function waitForByte(stream: Readable, what: string, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`${what} did not answer within ${timeoutMs} ms`));
    }, timeoutMs);
    const onData = (): void => {
      cleanup();
      resolve();
    };
    const onEnd = (): void => {
      cleanup();
      reject(new Error(`${what} stopped before it was ready`));
    };
    const cleanup = (): void => {
      clearTimeout(timer);
      stream.off("data", onData);
      stream.off("end", onEnd);
    };
    stream.once("data", onData);
    stream.once("end", onEnd);
  });
}

function runWithInput(file: string, args: readonly string[], input: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ["pipe", "ignore", "pipe"], env: hostHelperEnvironment() });
    let stderr = "";
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) resolve();
      else reject(new Error(`${file} ${args.join(" ")} failed (${code ?? "signal"}): ${stderr.trim()}`));
    });
    child.stdin.end(input);
  });
}

/**
 * Connects the network namespace of `sandboxPid` (bwrap's child, from `--info-fd`) to a user-mode
 * network and installs the refusals; resolves once the namespace is ready for the command.
 */
export async function startSetupNetwork(
  namespacePid: number,
  tools: SetupNetworkTools,
  options: {
    /** Destinations refused inside the namespace (default blockedSetupDestinations()). */
    readonly blocked?: readonly string[];
    readonly joinUserNamespace?: boolean;
  } = {},
): Promise<SetupNetwork> {
  const blocked = options.blocked ?? blockedSetupDestinations();
  const netns = `/proc/${namespacePid}/ns/net`;
  const userns = `/proc/${namespacePid}/ns/user`;
  // As root, by path: joining the sandbox's (nested) user namespace would drop the rights needed
  // here. Not as root, the namespaces were made by `unshare` as this user, who may join them.
  const joinUserNamespace = options.joinUserNamespace ?? false;
  const slirp = spawn(
    tools.slirp4netns,
    [
      "--configure",
      "--mtu=65520",
      "--disable-host-loopback",
      // Its own mount namespace and dropped capabilities; that step needs root, so only as root.
      ...(joinUserNamespace ? [] : ["--enable-sandbox"]),
      "--enable-seccomp",
      "--ready-fd=3",
      ...(joinUserNamespace ? [`--userns-path=${userns}`] : []),
      "--netns-type=path",
      netns,
      "tap0",
    ],
    { stdio: ["ignore", "ignore", "pipe", "pipe"], env: hostHelperEnvironment() },
  );
  let stderr = "";
  // Node's pipes are socket pairs: one closed by slirp4netns must not become an unhandled error.
  for (const stream of slirp.stdio) stream?.on("error", () => undefined);
  slirp.stderr?.setEncoding("utf8");
  slirp.stderr?.on("data", (chunk: string) => {
    stderr += chunk;
  });
  const stop = (): void => {
    if (slirp.exitCode === null && slirp.signalCode === null) slirp.kill("SIGTERM");
  };
  try {
    const ready = slirp.stdio[3] as Readable;
    await Promise.race([
      waitForByte(ready, "slirp4netns", READY_TIMEOUT_MS),
      new Promise<never>((_, reject) => slirp.once("error", reject)),
    ]);
    const routes = blocked.map((prefix) => `route add prohibit ${prefix}`).join("\n");
    const enter = joinUserNamespace
      ? [`--user=${userns}`, "--preserve-credentials", `--net=${netns}`]
      : [`--net=${netns}`];
    await runWithInput(tools.nsenter, [...enter, tools.ip, "-batch", "-"], `${routes}\n`);
  } catch (error) {
    stop();
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `the setup network could not be started: ${reason}${stderr ? ` (${stderr.trim()})` : ""}`,
      {
        cause: error,
      },
    );
  }
  return { stop };
}
