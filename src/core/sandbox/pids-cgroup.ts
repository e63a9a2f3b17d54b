import { randomBytes } from "node:crypto";
import { access, constants, mkdir, readFile, rmdir, writeFile } from "node:fs/promises";
import path from "node:path";

/**
 * The kernel does not apply RLIMIT_NPROC to processes whose real user is host root, and a
 * sandbox started by root maps its user to host root. A pids cgroup caps the process count
 * whatever the user is, so it is used when the harness runs as root and a hierarchy is writable.
 */
export interface PidsCgroup {
  /** Write a pid here to move it into the cgroup; its children inherit the membership. */
  readonly procsFile: string;
  dispose(): Promise<void>;
}

const V1_ROOT = "/sys/fs/cgroup/pids";
const V2_ROOT = "/sys/fs/cgroup";

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

/** Where per-run cgroups can be made, or undefined when none can (then only rlimits apply). */
export async function findPidsCgroupParent(): Promise<string | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  if ((await isWritable(path.join(V1_ROOT, "cgroup.procs"))) && (await isWritable(V1_ROOT))) return V1_ROOT;
  if ((await hasV2PidsController()) && (await isWritable(V2_ROOT))) return V2_ROOT;
  return undefined;
}

/** Creates a cgroup that allows at most `maxProcesses` tasks; remove it with dispose() after the run. */
export async function createPidsCgroup(parent: string, maxProcesses: number): Promise<PidsCgroup> {
  const directory = path.join(parent, `agentforge-${process.pid}-${randomBytes(6).toString("hex")}`);
  await mkdir(directory);
  try {
    await writeFile(path.join(directory, "pids.max"), String(maxProcesses));
  } catch (error) {
    await rmdir(directory);
    throw error;
  }
  return {
    procsFile: path.join(directory, "cgroup.procs"),
    async dispose(): Promise<void> {
      // The last task can take a moment to be reaped after SIGKILL; rmdir fails with EBUSY until then.
      for (let attempt = 0; attempt < 400; attempt += 1) {
        try {
          await rmdir(directory);
          return;
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          if (code === "ENOENT") return;
          if (code !== "EBUSY") throw error;
          await new Promise((resolve) => setTimeout(resolve, attempt < 50 ? 1 : 10));
        }
      }
      throw new Error(`Could not remove the cgroup ${directory}: it still has tasks.`);
    },
  };
}
