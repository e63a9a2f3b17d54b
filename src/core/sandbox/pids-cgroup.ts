import { randomBytes } from "node:crypto";
import { access, constants, mkdir, readFile, rmdir, writeFile } from "node:fs/promises";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * The kernel does not apply RLIMIT_NPROC to processes whose real user is host root, and a
 * sandbox started by root maps its user to host root. A pids cgroup caps the process count
 * whatever the user is, so it is used when the harness runs as root and a hierarchy is writable.
 */
export interface PidsCgroup {
  readonly directory: string;
  /** Write a pid here to move it into the cgroup; its children inherit the membership. */
  readonly procsFile: string;
  /** The `pids.max` last written. */
  readonly maxProcesses: number;
  /** Rewrites `pids.max`; synchronous because it is one small write to a kernel file. */
  setLimit(maxProcesses: number): void;
  /** Moves a running process in. Only processes it forks afterwards are counted, so move it before it forks. */
  admit(pid: number): void;
  /** Tasks still in the cgroup (zombies not yet reaped included). */
  countTasks(): number;
  /** SIGKILLs every task still in the cgroup, including ones that left the command's process group. */
  killTasks(): void;
  /** Removes the directory; fails with EBUSY while tasks remain. */
  remove(): Promise<void>;
}

const V1_ROOT = "/sys/fs/cgroup/pids";
const V2_ROOT = "/sys/fs/cgroup";
/** Cgroups this harness makes are named `agentforge-<pid of the harness>-<random>`. */
export const PIDS_CGROUP_NAME = /^agentforge-(\d+)-[0-9a-f]+$/;

async function isWritable(target: string): Promise<boolean> {
  try {
    await access(target, constants.W_OK);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EACCES" || code === "ENOENT" || code === "EROFS" || code === "EPERM") return false;
    throw error;
  }
}

async function hasV2PidsController(): Promise<boolean> {
  try {
    const enabled = await readFile(path.join(V2_ROOT, "cgroup.subtree_control"), "utf8");
    return enabled.split(/\s+/).includes("pids");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}

/** Where per-command cgroups can be made, or undefined when none can (then only rlimits apply). */
export async function findPidsCgroupParent(): Promise<string | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  if ((await isWritable(path.join(V1_ROOT, "cgroup.procs"))) && (await isWritable(V1_ROOT))) return V1_ROOT;
  if ((await hasV2PidsController()) && (await isWritable(V2_ROOT))) return V2_ROOT;
  return undefined;
}

function killPid(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch (error) {
    // ESRCH: it exited between the read and the kill, which is the goal.
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
  }
}

/** Creates a cgroup that allows at most `maxProcesses` tasks. */
export async function createPidsCgroup(parent: string, maxProcesses: number): Promise<PidsCgroup> {
  const directory = path.join(parent, `agentforge-${process.pid}-${randomBytes(6).toString("hex")}`);
  await mkdir(directory);
  try {
    await writeFile(path.join(directory, "pids.max"), String(maxProcesses));
  } catch (error) {
    await rmdir(directory);
    throw error;
  }
  const procsFile = path.join(directory, "cgroup.procs");
  let limit = maxProcesses;
  const readPids = (): number[] =>
    readFileSync(procsFile, "utf8")
      .split("\n")
      .filter((line) => line !== "")
      .map(Number);
  return {
    directory,
    procsFile,
    get maxProcesses(): number {
      return limit;
    },
    setLimit(next: number): void {
      writeFileSync(path.join(directory, "pids.max"), String(next));
      limit = next;
    },
    admit(pid: number): void {
      writeFileSync(procsFile, String(pid));
    },
    countTasks(): number {
      return Number(readFileSync(path.join(directory, "pids.current"), "utf8").trim());
    },
    killTasks(): void {
      // A forking task can add a pid between the read and the kills; a few passes catch up with it.
      for (let pass = 0; pass < 10; pass += 1) {
        const pids = readPids();
        if (pids.length === 0) return;
        for (const pid of pids) killPid(pid);
      }
    },
    remove(): Promise<void> {
      return rmdir(directory);
    },
  };
}
