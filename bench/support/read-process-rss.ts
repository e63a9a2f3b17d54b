import { readFile } from "node:fs/promises";

/**
 * A process's resident set (VmRSS in /proc/PID/status), in MiB: what the kernel holds for it,
 * every thread included, as a container's memory limit counts it.
 */
export async function readProcessRss(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(status);
  if (match?.[1] === undefined) throw new Error(`/proc/${pid}/status has no VmRSS line`);
  return Number(match[1]) / 1024;
}
