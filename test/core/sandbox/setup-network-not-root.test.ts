import { describe, expect, it } from "@jest/globals";
import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { findSetupNetworkTools } from "../../../src/core/sandbox/start-setup-network.js";

/*
 * A harness that is not root (the Docker image runs as its own user) makes the setup network's
 * namespaces with `unshare` around bwrap. The test runs the real runner as `nobody`, which it can
 * only do as root, and only when `nobody` can read this checkout.
 */
const repository = fileURLToPath(new URL("../../../", import.meta.url));
const NOBODY = 65534;
const canSwitchUser =
  process.getuid?.() === 0 &&
  spawnSync("runuser", [
    "-u",
    "nobody",
    "--",
    "test",
    "-r",
    path.join(repository, "node_modules", "tsx", "package.json"),
  ]).status === 0;
const tools = await findSetupNetworkTools();
// slirp4netns opens the TUN device as the harness's user; on some machines only root may.
const nobodyOpensTun =
  canSwitchUser &&
  spawnSync("runuser", ["-u", "nobody", "--", "sh", "-c", "exec 3<>/dev/net/tun"]).status === 0;
const skipReason = !canSwitchUser
  ? "the tests do not run as root, or `nobody` cannot read this checkout"
  : !tools.success
    ? `missing ${tools.missing.join(", ")}`
    : !nobodyOpensTun
      ? "/dev/net/tun cannot be opened by a user other than root on this machine (the product refuses setup commands there with that reason)"
      : undefined;
if (skipReason !== undefined) console.warn(`Skipping the not-root setup network test: ${skipReason}.`);
const describeIfPossible = skipReason === undefined ? describe : describe.skip;

describeIfPossible("the setup network when the harness is not root", () => {
  it("gives the setup command its own network without the host's loopback, and the agent none", () => {
    const scratch = mkdtempSync(path.join(tmpdir(), "agentforge-not-root-"));
    try {
      const workspace = path.join(scratch, "workspace");
      const home = path.join(scratch, "home");
      for (const folder of [workspace, home]) {
        spawnSync("mkdir", [folder]);
        chownSync(folder, NOBODY, NOBODY);
      }
      chmodSync(scratch, 0o755);
      const script = path.join(scratch, "run.mts");
      const source = (relative: string): string => JSON.stringify(path.join(repository, relative));
      writeFileSync(
        script,
        `import { createSandboxRunner } from ${source("src/core/sandbox/create-sandbox-runner.ts")};
const runner = createSandboxRunner({ mode: "bwrap" });
const probe = (label, host, port) => \`(exec 3<>/dev/tcp/\${host}/\${port}) 2>/dev/null && echo \${label}=open || echo \${label}=closed\`;
const setup = await runner.run([probe("hostLoopback", "10.0.2.2", 6379), probe("metadata", "169.254.169.254", 80), "grep -c '^tap0' /proc/net/route", "id -u"].join("\\n"), { cwd: process.argv[2], timeoutMs: 15000, network: true });
const agent = await runner.run("grep -c '^tap0' /proc/net/route", { cwd: process.argv[2], timeoutMs: 15000 });
runner.close();
console.log(JSON.stringify({ setup: setup.stdout, setupError: setup.stderr, agent: agent.stdout }));
`,
        { mode: 0o644 },
      );
      const run = spawnSync(
        "runuser",
        ["-u", "nobody", "--", process.execPath, "--import", "tsx", script, workspace],
        {
          cwd: repository,
          encoding: "utf8",
          env: { PATH: process.env.PATH ?? "", HOME: home },
          timeout: 60_000,
        },
      );
      expect(run.stderr).toBe("");
      const result = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}") as Record<string, string>;
      expect(result["setup"]).toContain("hostLoopback=closed");
      expect(result["setup"]).toContain("metadata=closed");
      // A network was attached (a route through its interface), and the command ran as nobody.
      expect(result["setup"]).toMatch(/^[1-9]\d*\n65534\n$/m);
      expect(result["agent"]).toBe("0\n");
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }, 90_000);
});

// The same machine difference, met by the product: a clear refusal that names the device and the fix.
const isTunRootOnly = canSwitchUser && tools.success && !nobodyOpensTun;
if (!isTunRootOnly && skipReason === undefined)
  console.warn("Skipping the root-only /dev/net/tun test: `nobody` may open the device here.");
const describeWhereTunIsRootOnly = isTunRootOnly ? describe : describe.skip;

describeWhereTunIsRootOnly("the setup network where only root may open /dev/net/tun", () => {
  it("refuses a network-on command as nobody, naming the device and the fix", () => {
    const scratch = mkdtempSync(path.join(tmpdir(), "agentforge-no-tun-"));
    try {
      const workspace = path.join(scratch, "workspace");
      spawnSync("mkdir", [workspace]);
      chownSync(workspace, NOBODY, NOBODY);
      chmodSync(scratch, 0o755);
      const script = path.join(scratch, "run.mts");
      writeFileSync(
        script,
        `import { createSandboxRunner } from ${JSON.stringify(path.join(repository, "src/core/sandbox/create-sandbox-runner.ts"))};
const runner = createSandboxRunner({ mode: "bwrap" });
try {
  await runner.run("true", { cwd: process.argv[2], timeoutMs: 15000, network: true });
  console.log(JSON.stringify({ ran: true }));
} catch (error) {
  console.log(JSON.stringify({ code: error.code, message: error.message, fix: error.fix }));
} finally { runner.close(); }
`,
        { mode: 0o644 },
      );
      const run = spawnSync(
        "runuser",
        ["-u", "nobody", "--", process.execPath, "--import", "tsx", script, workspace],
        {
          cwd: repository,
          encoding: "utf8",
          env: { PATH: process.env.PATH ?? "", HOME: scratch },
          timeout: 60_000,
        },
      );
      const result = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}") as Record<string, string>;
      expect(result["code"]).toBe("SANDBOX_UNAVAILABLE");
      expect(result["message"]).toContain("/dev/net/tun cannot be opened by this user");
      expect(result["fix"]).toContain("AGENTFORGE_SETUP_NETWORK=host");
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }, 90_000);
});
