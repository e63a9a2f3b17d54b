import { readdir, rmdir } from "node:fs/promises";
import path from "node:path";
import { SandboxError } from "./sandbox-error.js";
import { createPidsCgroup, PIDS_CGROUP_NAME, type PidsCgroup } from "./pids-cgroup.js";

/** One sandbox's exclusive use of a pids cgroup. */
export interface PidsCgroupLease {
  readonly cgroup: PidsCgroup;
  /** Moves a process in before it forks; everything it starts later counts against the limit. */
  admit(pid: number): void;
  /** Kills what is left, then gives the cgroup back once it is empty; never waits. */
  release(): void;
}

/**
 * Cgroups made ahead of time and reused, so a command pays neither mkdir nor rmdir on its way.
 * A cgroup serves one sandbox at a time (concurrent sandboxes each get their own, so each has its
 * own limit) and goes back to the pool only when no task of the previous one is left in it.
 */
export interface PidsCgroupPool {
  readonly parent: string;
  acquire(maxProcesses: number): Promise<PidsCgroupLease>;
  /** Makes a spare cgroup in the background if none is ready. */
  prepareSpare(maxProcesses: number): void;
  /** Idle cgroups, for tests and doctor. */
  readonly idleCount: number;
  /** Removes the idle cgroups (tests; a process that exits leaves them to the next sweep). */
  drain(): Promise<void>;
}

/** How long a released cgroup may take to empty before it is given up on (never reused). */
const EMPTY_WAIT_MS = 10_000;
const MAX_IDLE = 8;

type Spare = { success: true; value: PidsCgroup } | { success: false; error: unknown };

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ESRCH") return false;
    // EPERM: the process exists but belongs to someone else.
    if (code === "EPERM") return true;
    throw error;
  }
}

/**
 * Removes empty cgroups left by harness processes that are gone (a crash, or an exit with idle
 * cgroups in its pool). A cgroup that still has tasks refuses rmdir with EBUSY and is kept.
 */
export async function sweepStalePidsCgroups(parent: string): Promise<number> {
  let removed = 0;
  for (const name of await readdir(parent)) {
    const owner = PIDS_CGROUP_NAME.exec(name)?.[1];
    if (owner === undefined || Number(owner) === process.pid || isAlive(Number(owner))) continue;
    try {
      await rmdir(path.join(parent, name));
      removed += 1;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "EBUSY" && code !== "ENOENT") throw error;
    }
  }
  return removed;
}

export function createPidsCgroupPool(parent: string): PidsCgroupPool {
  const idle: PidsCgroup[] = [];
  let spare: Promise<Spare> | undefined;
  let swept = false;
  let failure: unknown;

  const makeSpare = (maxProcesses: number): void => {
    if (spare !== undefined || idle.length > 0) return;
    spare = (async (): Promise<Spare> => {
      try {
        if (!swept) {
          swept = true;
          await sweepStalePidsCgroups(parent);
        }
        return { success: true, value: await createPidsCgroup(parent, maxProcesses) };
      } catch (error) {
        return { success: false, error };
      }
    })();
  };

  const takeCgroup = async (maxProcesses: number): Promise<PidsCgroup> => {
    const ready = idle.pop();
    if (ready !== undefined) return ready;
    if (spare !== undefined) {
      const made = await spare;
      spare = undefined;
      // A failed background attempt is retried once on the caller's path, where its error is thrown.
      if (made.success) return made.value;
    }
    return createPidsCgroup(parent, maxProcesses);
  };

  const giveBack = (cgroup: PidsCgroup, waitedMs: number): void => {
    try {
      cgroup.killTasks();
      if (cgroup.countTasks() === 0) {
        if (idle.length < MAX_IDLE) idle.push(cgroup);
        else removeWhenIdle(cgroup);
        return;
      }
    } catch (error) {
      // Out of the caller's reach by now: the next acquire reports it, and this cgroup is not reused.
      failure ??= error;
      return;
    }
    // Tasks of a torn-down pid namespace take a moment to be released; until then the count is not
    // fresh. A cgroup whose count does not reach 0 in time is never reused; it is removed once no
    // task is left in it, or by a later sweep.
    if (waitedMs >= EMPTY_WAIT_MS) {
      removeWhenIdle(cgroup);
      return;
    }
    const delay = waitedMs < 50 ? 2 : 50;
    setTimeout(() => giveBack(cgroup, waitedMs + delay), delay).unref();
  };

  const removeWhenIdle = (cgroup: PidsCgroup): void => {
    cgroup.remove().catch((error: unknown) => {
      // A task that appeared after the count keeps the directory; a later sweep removes it.
      if ((error as NodeJS.ErrnoException).code !== "EBUSY") failure ??= error;
    });
  };

  return {
    parent,
    get idleCount(): number {
      return idle.length;
    },
    async acquire(maxProcesses: number): Promise<PidsCgroupLease> {
      if (failure !== undefined) {
        const cause = failure;
        failure = undefined;
        throw new SandboxError(
          "SANDBOX_UNAVAILABLE",
          "The pids cgroup of an earlier command could not be checked or removed, so the process limit is not trusted.",
          "Check that the cgroup hierarchy is still mounted and writable; the next command tries again.",
          { cause },
        );
      }
      const cgroup = await takeCgroup(maxProcesses);
      if (cgroup.maxProcesses !== maxProcesses) cgroup.setLimit(maxProcesses);
      makeSpare(maxProcesses);
      let released = false;
      return {
        cgroup,
        admit: (pid: number) => cgroup.admit(pid),
        release(): void {
          if (released) return;
          released = true;
          giveBack(cgroup, 0);
        },
      };
    },
    prepareSpare: makeSpare,
    async drain(): Promise<void> {
      const pending = spare;
      spare = undefined;
      const made = pending ? await pending : undefined;
      if (made?.success) idle.push(made.value);
      for (const cgroup of idle.splice(0)) await cgroup.remove();
    },
  };
}

const shared = new Map<string, PidsCgroupPool>();

/** One pool per cgroup hierarchy for the whole process, shared by every runner. */
export function getPidsCgroupPool(parent: string): PidsCgroupPool {
  let pool = shared.get(parent);
  if (pool === undefined) {
    pool = createPidsCgroupPool(parent);
    shared.set(parent, pool);
  }
  return pool;
}
