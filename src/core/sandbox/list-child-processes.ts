import { existsSync, readFileSync } from "node:fs";

/**
 * The host pids of a process's children, from the kernel (`/proc/<pid>/task/<pid>/children`).
 * Inside a sandbox whose pid 1 is `pid`, every orphan is re-parented to it, so "no children" means
 * nothing else runs in that pid namespace. Only the main thread's children are read: the programs
 * this is used for are single-threaded.
 */
export function listChildProcesses(pid: number): number[] {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8");
  } catch (error) {
    // The process is gone, and so are (or will be, with its pid namespace) its children.
    if (
      (error as NodeJS.ErrnoException).code === "ENOENT" ||
      (error as NodeJS.ErrnoException).code === "ESRCH"
    )
      return [];
    throw error;
  }
  return text
    .split(" ")
    .filter((part) => part.trim() !== "")
    .map(Number);
}

/** Whether this kernel lists children in /proc (CONFIG_PROC_CHILDREN); the warm sandbox needs it. */
export function canListChildProcesses(): boolean {
  return existsSync(`/proc/${process.pid}/task/${process.pid}/children`);
}

/** SIGKILLs every child of `pid` (not `pid` itself); returns how many were signalled. */
export function killChildProcesses(pid: number): number {
  const children = listChildProcesses(pid);
  for (const child of children) {
    try {
      process.kill(child, "SIGKILL");
    } catch (error) {
      // ESRCH: it exited between the listing and the kill.
      if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
    }
  }
  return children.length;
}
