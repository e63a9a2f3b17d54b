import { describe, expect, it } from "@jest/globals";
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:net";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { networkInterfaces, tmpdir } from "node:os";
import path from "node:path";
import type { Readable, Writable } from "node:stream";
import {
  blockedSetupDestinations,
  findSetupNetworkTools,
  SETUP_NETWORK_RESOLV_CONF,
  startSetupNetwork,
} from "../../../src/core/sandbox/start-setup-network.js";

const hostAddress = Object.values(networkInterfaces())
  .flat()
  .find((address) => address?.family === "IPv4" && !address.internal)?.address;

const tools = await findSetupNetworkTools();
const skipReason = !tools.success
  ? `missing ${tools.missing.join(", ")}`
  : process.getuid?.() !== 0
    ? "the tests do not run as root"
    : hostAddress === undefined
      ? "this machine has no external IPv4 address"
      : undefined;
if (skipReason !== undefined) console.warn(`Skipping the setup network tests: ${skipReason}.`);
const describeIfPossible = skipReason === undefined ? describe : describe.skip;

function listen(host: string): Promise<{ server: Server; port: number }> {
  return new Promise((resolve, reject) => {
    const server = createServer((socket) => {
      socket.on("error", () => undefined);
      socket.end("hello\n");
    });
    server.once("error", reject);
    server.listen(0, host, () => {
      const address = server.address();
      if (address === null || typeof address === "string") throw new Error("no port");
      resolve({ server, port: address.port });
    });
  });
}

/** Runs `script` in a sandbox like the runner's (own namespaces, nobody, no capabilities) with the setup network. */
async function runWithSetupNetwork(script: string, blocked?: readonly string[]): Promise<string> {
  if (!tools.success) throw new Error("tools missing");
  const scratch = mkdtempSync(path.join(tmpdir(), "agentforge-setup-net-"));
  const resolvConf = path.join(scratch, "resolv.conf");
  writeFileSync(resolvConf, SETUP_NETWORK_RESOLV_CONF, { mode: 0o644 });
  try {
    const child = spawn(
      "bwrap",
      [
        "--unshare-all",
        "--die-with-parent",
        "--ro-bind",
        "/",
        "/",
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--ro-bind",
        resolvConf,
        "/etc/resolv.conf",
        "--uid",
        "65534",
        "--gid",
        "65534",
        "--cap-drop",
        "ALL",
        "--info-fd",
        "3",
        "--block-fd",
        "4",
        "--",
        "bash",
        "-c",
        script,
      ],
      { stdio: ["ignore", "pipe", "pipe", "pipe", "pipe"] },
    );
    let output = "";
    child.stdout?.setEncoding("utf8");
    child.stdout?.on("data", (chunk: string) => {
      output += chunk;
    });
    child.stderr?.on("data", () => undefined);
    // Node's pipes are socket pairs: a peer closing with bytes unread resets them.
    for (const stream of child.stdio) stream?.on("error", () => undefined);
    const info = child.stdio[3] as Readable;
    let text = "";
    const pid = await new Promise<number>((resolve, reject) => {
      info.on("data", (chunk: Buffer) => {
        text += chunk.toString("utf8");
        const match = /"child-pid":\s*(\d+)/.exec(text);
        if (match) resolve(Number(match[1]));
      });
      child.once("error", reject);
    });
    const network = await startSetupNetwork(pid, tools.value, blocked ? { blocked } : {});
    (child.stdio[4] as Writable).write("x");
    await new Promise((resolve) => child.once("close", resolve));
    network.stop();
    return output;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const probe = (label: string, host: string, port: number): string =>
  `(exec 3<>/dev/tcp/${host}/${port} && head -c 5 <&3) >/dev/null 2>&1 && echo "${label}=open" || echo "${label}=closed"`;

describe("blockedSetupDestinations", () => {
  it("refuses link-local (cloud metadata), the gateway standing for the host, and the host's own addresses", () => {
    const blocked = blockedSetupDestinations();
    expect(blocked).toContain("169.254.0.0/16");
    expect(blocked).toContain("10.0.2.2/32");
    if (hostAddress !== undefined) expect(blocked).toContain(`${hostAddress}/32`);
    expect(blocked.some((prefix) => prefix.startsWith("127."))).toBe(false);
  });
});

describeIfPossible("the setup network (real bwrap and slirp4netns)", () => {
  it("reaches a server on the host's address only when it is not refused, and never the host's loopback", async () => {
    const loopback = await listen("127.0.0.1");
    const anyAddress = await listen("0.0.0.0");
    try {
      const script = [
        probe("hostLoopbackViaGateway", "10.0.2.2", loopback.port),
        probe("ownLoopback", "127.0.0.1", loopback.port),
        probe("hostAddress", hostAddress!, anyAddress.port),
        probe("metadata", "169.254.169.254", 80),
        'ip route add 192.0.2.77 dev tap0 >/dev/null 2>&1 && echo "routeChange=allowed" || echo "routeChange=refused"',
      ].join("\n");
      // With the host's address left open, the network works (a positive control)...
      const open = await runWithSetupNetwork(script, ["169.254.0.0/16", "10.0.2.2/32"]);
      expect(open).toContain("hostAddress=open");
      expect(open).toContain("hostLoopbackViaGateway=closed");
      expect(open).toContain("ownLoopback=closed");
      expect(open).toContain("metadata=closed");
      expect(open).toContain("routeChange=refused");
      // ...and with the default refusals, the host's own address is closed too.
      const closed = await runWithSetupNetwork(script);
      expect(closed).toContain("hostAddress=closed");
      expect(closed).toContain("hostLoopbackViaGateway=closed");
      expect(closed).toContain("metadata=closed");
    } finally {
      loopback.server.close();
      anyAddress.server.close();
    }
  }, 30_000);
});
