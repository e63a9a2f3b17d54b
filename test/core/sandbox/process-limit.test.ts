import { afterEach, beforeEach, expect, it } from "@jest/globals";
import { execFileSync } from "node:child_process";
import { createSandboxRunner, type SandboxRunner } from "../../../src/core/sandbox/create-sandbox-runner.js";
import { describeWithBwrap, detection, makeTempDirectory, removeDirectory } from "./sandbox-test-helpers.js";

function countHostProcesses(): number {
  return execFileSync("ps", ["-e", "--no-headers", "-o", "pid"], { encoding: "utf8" }).trim().split("\n")
    .length;
}

const BURST = "for i in $(seq 1 60); do (echo started; exec sleep 5) & done 2>/dev/null; wait";
const countStarted = (stdout: string): number =>
  stdout.split("\n").filter((line) => line === "started").length;

describeWithBwrap.each([
  { reuseSandbox: true, label: "warm sandbox" },
  { reuseSandbox: false, label: "fresh sandbox per command" },
])("the process limit of the sandbox ($label)", ({ reuseSandbox }) => {
  let workspace: string;
  let runner: SandboxRunner | undefined;
  beforeEach(async () => {
    workspace = await makeTempDirectory("agentforge-nproc-");
  });
  afterEach(async () => {
    runner?.close();
    await removeDirectory(workspace);
  });

  it(`says how the process count is capped here (${detection.processLimit ?? "unknown"})`, () => {
    // As root only a pids cgroup binds; with neither, the fork-bomb test below would be unsafe.
    expect(["rlimit", "cgroup", "none"]).toContain(detection.processLimit);
  });

  const limitApplies = detection.processLimit === "rlimit" || detection.processLimit === "cgroup";
  if (!limitApplies)
    console.warn(
      "Skipping the fork-bomb test: no process limit binds on this machine (root without a writable pids cgroup).",
    );
  const itWithLimit = limitApplies ? it : it.skip;

  itWithLimit("contains a harmless burst, then a fork bomb, and keeps working", async () => {
    runner = createSandboxRunner({
      mode: "bwrap",
      workspaceRoot: workspace,
      limits: { maxProcesses: 24 },
      reuseSandbox,
    });
    // First prove with a harmless count that the limit binds; only then is the bomb safe to run.
    const burst = await runner.run(BURST, { cwd: workspace, timeoutMs: 3000 });
    const started = countStarted(burst.stdout);
    expect(started).toBeGreaterThan(0);
    expect(started).toBeLessThanOrEqual(24);
    if (started > 24) return;

    const before = countHostProcesses();
    const bomb = await runner.run(":(){ :|:& };:", { cwd: workspace, timeoutMs: 2000 });
    expect(bomb.exitCode === 0 || bomb.timedOut).toBe(true);
    expect(countHostProcesses()).toBeLessThan(before + 10);
    // The same limit again right after the bomb: its processes are gone and no longer counted.
    const again = await runner.run(BURST, { cwd: workspace, timeoutMs: 3000 });
    expect(countStarted(again.stdout)).toBeGreaterThan(started / 2);
    expect(countStarted(again.stdout)).toBeLessThanOrEqual(24);
    const after = await runner.run("echo alive", { cwd: workspace, timeoutMs: 5000 });
    expect(after.stdout).toBe("alive\n");
  });

  itWithLimit("limits each of two commands that run at the same time", async () => {
    runner = createSandboxRunner({
      mode: "bwrap",
      workspaceRoot: workspace,
      limits: { maxProcesses: 16 },
      reuseSandbox,
    });
    const both = await Promise.all([
      runner.run(BURST, { cwd: workspace, timeoutMs: 3000 }),
      runner.run(BURST, { cwd: workspace, timeoutMs: 3000 }),
    ]);
    for (const outcome of both) {
      expect(countStarted(outcome.stdout)).toBeGreaterThan(0);
      expect(countStarted(outcome.stdout)).toBeLessThanOrEqual(16);
    }
  });
});
