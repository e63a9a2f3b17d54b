import { readdirSync, readFileSync } from "node:fs";

/**
 * Keeps the pids of the MCP server processes this process started, so none outlives it: on a
 * normal exit, on an uncaught exception (both run the `exit` event) and on SIGINT/SIGTERM/SIGHUP
 * when nobody else handles them. A SIGKILL of this process cannot be caught; stdio servers then
 * see their stdin close, which well-behaved servers take as the signal to stop.
 */
const livePids = new Set<number>();
const HANDLED_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
let isInstalled = false;

export function trackChildProcess(pid: number): void {
  livePids.add(pid);
  installHooks();
}

export function untrackChildProcess(pid: number): void {
  livePids.delete(pid);
}

/** Whether a process with this pid still exists (and is not a zombie waiting to be reaped). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM means it exists but belongs to someone else; ESRCH means it is gone.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  return readProcessState(pid) !== "Z";
}

/**
 * Every descendant of `pid` (children, grandchildren), read from /proc. Servers started through a
 * wrapper (`npx`, `sh -c`) run the real server as a grandchild that a kill of the wrapper would
 * leave behind. Empty where /proc does not exist.
 */
export function listDescendantPids(pid: number): number[] {
  const parents = readParentTable();
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const current = queue.shift()!;
    for (const [child, parent] of parents) {
      if (parent === current && !found.includes(child)) {
        found.push(child);
        queue.push(child);
      }
    }
  }
  return found;
}

/** Sends `signal` to each pid that is still alive; a pid that vanished in between is not an error. */
export function signalProcesses(pids: readonly number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
    }
  }
}

function killAllNow(): void {
  const pids = [...livePids].flatMap((pid) => [pid, ...listDescendantPids(pid)]);
  livePids.clear();
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch (error) {
      // ESRCH (already gone) is the expected case; anything else cannot be reported during exit,
      // and the remaining pids must still get their signal.
      void error;
    }
  }
}

function installHooks(): void {
  if (isInstalled) return;
  isInstalled = true;
  process.on("exit", killAllNow);
  for (const signal of HANDLED_SIGNALS) {
    const onSignal = (): void => {
      // Someone else handles this signal (a door that cancels the run): they close the manager.
      if (process.listenerCount(signal) > 1) return;
      killAllNow();
      process.removeListener(signal, onSignal);
      // Re-raise so the process ends the way it would have without this handler.
      process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}

function readProcessState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

function readParentTable(): Map<number, number> {
  const table = new Map<number, number>();
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return table;
    throw error;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch (error) {
      // Processes come and go while we read; a missing one is simply skipped.
      if (
        (error as NodeJS.ErrnoException).code === "ENOENT" ||
        (error as NodeJS.ErrnoException).code === "ESRCH"
      )
        continue;
      throw error;
    }
    // Fields after the command name (which may contain spaces) start after the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const parent = Number(fields[1]);
    if (Number.isInteger(parent)) table.set(Number(entry), parent);
  }
  return table;
}
