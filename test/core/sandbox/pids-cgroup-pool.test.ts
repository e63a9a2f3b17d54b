import { afterEach, describe, expect, it } from "@jest/globals";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, rmdir } from "node:fs/promises";
import path from "node:path";
import { findPidsCgroupParent } from "../../../src/core/sandbox/pids-cgroup.js";
import {
  createPidsCgroupPool,
  sweepStalePidsCgroups,
  type PidsCgroupPool,
} from "../../../src/core/sandbox/pids-cgroup-pool.js";
import { waitUntil } from "../../support/wait-until.js";

// Only as root with a writable pids hierarchy (CI runs as root); elsewhere rlimits are used instead.
const parent = await findPidsCgroupParent();
if (parent === undefined)
  console.warn("Skipping the pids cgroup pool tests: no writable pids cgroup hierarchy here (needs root).");
const describeWithCgroup = parent === undefined ? describe.skip : describe;

describeWithCgroup("the pool of pids cgroups", () => {
  const root = parent ?? "";
  let pool: PidsCgroupPool;
  const children: ChildProcess[] = [];
  afterEach(async () => {
    for (const child of children.splice(0)) child.kill("SIGKILL");
    await pool.drain();
  });

  it("hands out a cgroup with the limit, and reuses it once its last task is gone", async () => {
    pool = createPidsCgroupPool(root);
    const lease = await pool.acquire(7);
    expect(await readFile(path.join(lease.cgroup.directory, "pids.max"), "utf8")).toBe("7\n");
    const sleeper = spawn("sleep", ["30"], { stdio: "ignore" });
    children.push(sleeper);
    lease.admit(sleeper.pid ?? 0);
    expect(lease.cgroup.countTasks()).toBe(1);
    // Taken while the first is held: a different cgroup.
    const other = await pool.acquire(9);
    expect(other.cgroup.directory).not.toBe(lease.cgroup.directory);
    other.release();
    // Releasing kills what is left in it, then the cgroup becomes idle again.
    lease.release();
    if (sleeper.exitCode === null && sleeper.signalCode === null)
      await new Promise((resolve) => sleeper.once("exit", resolve));
    expect(sleeper.signalCode).toBe("SIGKILL");
    await waitUntil(() => pool.idleCount >= 2, "both cgroups to be idle again");
    const again = await pool.acquire(5);
    expect([lease.cgroup.directory, other.cgroup.directory]).toContain(again.cgroup.directory);
    expect(await readFile(path.join(again.cgroup.directory, "pids.max"), "utf8")).toBe("5\n");
    again.release();
  });

  it("removes empty cgroups left by harness processes that are gone, and keeps live ones", async () => {
    pool = createPidsCgroupPool(root);
    // A pid that cannot be running: above the kernel's pid_max.
    const stale = path.join(root, `agentforge-${4_194_400 + 1}-abcdef`);
    const live = path.join(root, `agentforge-${process.pid}-abcdef`);
    await mkdir(stale);
    await mkdir(live);
    try {
      expect(await sweepStalePidsCgroups(root)).toBeGreaterThanOrEqual(1);
      expect(existsSync(stale)).toBe(false);
      expect(existsSync(live)).toBe(true);
    } finally {
      for (const directory of [stale, live]) if (existsSync(directory)) await rmdir(directory);
    }
  });
});
