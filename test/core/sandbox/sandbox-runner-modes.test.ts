import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:net";
import path from "node:path";
import { createSandboxRunner } from "../../../src/core/sandbox/create-sandbox-runner.js";
import { detectSandbox } from "../../../src/core/sandbox/detect-sandbox.js";
import { SandboxError } from "../../../src/core/sandbox/sandbox-error.js";
import { runSetupCommands } from "../../../src/core/sandbox/run-setup-commands.js";
import { prepareSetupNetwork } from "../../../src/core/sandbox/prepare-setup-network.js";
import { networkInterfaces } from "node:os";
import { describeWithBwrap, makeTempDirectory, removeDirectory } from "./sandbox-test-helpers.js";

let workspace: string;
beforeEach(async () => {
  workspace = await makeTempDirectory("agentforge-modes-");
});
afterEach(async () => {
  await removeDirectory(workspace);
});

async function listen(host = "127.0.0.1"): Promise<{ server: Server; port: number }> {
  const server = createServer((socket) => {
    socket.on("error", () => undefined);
    socket.end("reached\n");
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const address = server.address();
  return { server, port: typeof address === "object" && address !== null ? address.port : 0 };
}

describe("when bubblewrap cannot run", () => {
  it("detectSandbox says why and how to fix it, and the runner refuses commands", async () => {
    const missing = "/nonexistent/bwrap";
    const detection = await detectSandbox({ bwrapPath: missing });
    expect(detection.available).toBe(false);
    expect(detection.problem).toContain(missing);
    expect(detection.fix).toMatch(/apt-get install -y bubblewrap/);
    const runner = createSandboxRunner({ mode: "bwrap", bwrapPath: missing });
    const refusal = runner.run("echo hi", { cwd: workspace, timeoutMs: 1000 });
    await expect(refusal).rejects.toBeInstanceOf(SandboxError);
    await expect(refusal).rejects.toMatchObject({ code: "SANDBOX_UNAVAILABLE" });
  });

  it("an unknown AGENTFORGE_SANDBOX value is refused at creation, not treated as none", () => {
    expect(() => createSandboxRunner({ env: { AGENTFORGE_SANDBOX: "disabled" } })).toThrow(SandboxError);
  });
});

describe("mode none (chosen explicitly)", () => {
  it("still cleans the environment, gives a private HOME and kills leftover children", async () => {
    const runner = createSandboxRunner({
      env: { ...process.env, AGENTFORGE_SANDBOX: "none", AGENTFORGE_TEST_SECRET: "ghs_none_mode" },
    });
    expect(runner.sandboxKind).toBe("none");
    const outcome = await runner.run("env; echo HOME=$HOME; sleep 100 & echo bg", {
      cwd: workspace,
      timeoutMs: 5000,
    });
    expect(outcome.exitCode).toBe(0);
    expect(outcome.stdout).not.toContain("ghs_none_mode");
    expect(outcome.stdout).toMatch(/HOME=\/\S*agentforge-sandbox-\S*\/home/);
    const timeout = await runner.run("sleep 100", { cwd: workspace, timeoutMs: 300 });
    expect(timeout.timedOut).toBe(true);
  });

  it("refuses a read-only session's command: without namespaces nothing could make the workspace read-only", async () => {
    const runner = createSandboxRunner({ mode: "none" });
    await expect(
      runner.run("echo x > written.txt", { cwd: workspace, timeoutMs: 5000, readOnlyWorkspace: true }),
    ).rejects.toMatchObject({ code: "SANDBOX_UNAVAILABLE", message: expect.stringContaining("read-only") });
    expect(existsSync(path.join(workspace, "written.txt"))).toBe(false);
  });

  it("reaches a loopback server, which shows the bwrap test below could fail", async () => {
    const { server, port } = await listen();
    try {
      const runner = createSandboxRunner({ mode: "none" });
      const outcome = await runner.run(`exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3`, {
        cwd: workspace,
        timeoutMs: 5000,
      });
      expect(outcome.stdout).toBe("reached\n");
    } finally {
      server.close();
    }
  });
});

describeWithBwrap("the setup phase", () => {
  const hostAddress = Object.values(networkInterfaces())
    .flat()
    .find((address) => address?.family === "IPv4" && !address.internal)?.address;
  const probe = (label: string, host: string, port: number): string =>
    `(exec 3<>/dev/tcp/${host}/${port} && cat <&3) >/dev/null 2>&1 && echo "${label}=open" || echo "${label}=closed"`;

  it("gives setup commands a network of their own that cannot reach the host, and no secrets", async () => {
    const { server, port } = await listen("0.0.0.0");
    try {
      const runner = createSandboxRunner({
        mode: "bwrap",
        env: { ...process.env, GITHUB_TOKEN: "ghs_setup_secret" },
      });
      const probes = [
        probe("ownLoopback", "127.0.0.1", port),
        probe("hostLoopback", "10.0.2.2", port),
        ...(hostAddress ? [probe("hostAddress", hostAddress, port)] : []),
        probe("metadata", "169.254.169.254", 80),
        // A network is there: a default route through the user-mode interface, and its resolver.
        "grep -c '^tap0' /proc/net/route",
        "grep nameserver /etc/resolv.conf",
      ].join("\n");
      const result = await runSetupCommands([probes, "env | grep -c ghs_setup_secret", "echo never"], {
        runner,
        cwd: workspace,
        timeoutMs: 10_000,
      });
      expect(result.ok).toBe(false);
      expect(result.results).toHaveLength(2);
      const output = result.results[0]?.outcome.stdout ?? "";
      expect(output).toContain("ownLoopback=closed");
      expect(output).toContain("hostLoopback=closed");
      if (hostAddress) expect(output).toContain("hostAddress=closed");
      expect(output).toContain("metadata=closed");
      expect(output).toMatch(/^[1-9]\d*$/m);
      expect(output).toContain("nameserver 10.0.2.3");
      expect(result.results[1]?.outcome.stdout).toBe("0\n");
      expect(result.failedCommand).toBe("env | grep -c ghs_setup_secret");
      // The agent's own commands still have no network at all.
      const agentPhase = await runner.run("grep -c '^tap0' /proc/net/route", {
        cwd: workspace,
        timeoutMs: 5000,
      });
      expect(agentPhase.stdout).toBe("0\n");
      runner.close();
    } finally {
      server.close();
    }
  });

  it("shares the host's network only when the operator sets AGENTFORGE_SETUP_NETWORK=host", async () => {
    const { server, port } = await listen("127.0.0.1");
    try {
      const runner = createSandboxRunner({
        mode: "bwrap",
        env: { ...process.env, AGENTFORGE_SETUP_NETWORK: "host" },
      });
      const setup = await runner.run(`exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3`, {
        cwd: workspace,
        timeoutMs: 5000,
        network: true,
      });
      expect(setup.stdout).toBe("reached\n");
      const agentPhase = await runner.run(`exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3`, {
        cwd: workspace,
        timeoutMs: 5000,
      });
      expect(agentPhase.stdout).toBe("");
      expect(agentPhase.exitCode).not.toBe(0);
      runner.close();
    } finally {
      server.close();
    }
    expect(() => createSandboxRunner({ mode: "bwrap", env: { AGENTFORGE_SETUP_NETWORK: "open" } })).toThrow(
      /AGENTFORGE_SETUP_NETWORK must be "isolated" or "host"/,
    );
  });

  it("refuses network-on commands with what to install when the setup network's programs are missing", async () => {
    await expect(prepareSetupNetwork("/nonexistent")).rejects.toMatchObject({
      code: "SANDBOX_UNAVAILABLE",
      fix: expect.stringContaining("slirp4netns") as unknown as string,
    });
  });

  it("refuses a cwd outside the workspace root", async () => {
    const runner = createSandboxRunner({ mode: "bwrap", workspaceRoot: workspace });
    await expect(runner.run("true", { cwd: "/", timeoutMs: 1000 })).rejects.toMatchObject({
      code: "SANDBOX_BAD_OPTIONS",
    });
  });
});
