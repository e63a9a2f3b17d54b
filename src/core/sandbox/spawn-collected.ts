import { spawn } from "node:child_process";
import type { CommandOutcome } from "../tools/tool.js";
import { OutputCollector } from "./output-collector.js";

export interface SpawnCollectedOptions {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  /** Bytes of stdout plus stderr kept for the result (head and tail of each stream). */
  readonly maxOutputBytes: number;
  /** Past this many bytes of output the command is killed: it is flooding, not working. */
  readonly killAfterOutputBytes: number;
}

/** How long to wait for pipes to close after the process group is gone. */
const DRAIN_GRACE_MS = 500;

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch (error) {
    // ESRCH: the group is already gone, which is the goal.
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
  }
}

/**
 * Spawns a program as the leader of a new process group and collects its output within limits.
 * On timeout, abort, output flood or normal exit the whole group gets SIGKILL, so background
 * children (`sleep 100 &`) never outlive the call.
 */
export function spawnCollected(
  file: string,
  args: readonly string[],
  options: SpawnCollectedOptions,
): Promise<CommandOutcome> {
  const started = performance.now();
  const stdout = new OutputCollector(Math.floor(options.maxOutputBytes / 2));
  const stderr = new OutputCollector(Math.ceil(options.maxOutputBytes / 2));
  let timedOut = false;
  let flooded = false;

  return new Promise<CommandOutcome>((resolve, reject) => {
    const child = spawn(file, [...args], {
      cwd: options.cwd,
      env: { ...options.env },
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let exit: { code: number | null; signal: string | null } | undefined;
    let settled = false;

    const finish = (): void => {
      if (settled || exit === undefined) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(drainTimer);
      options.signal?.removeEventListener("abort", onAbort);
      resolve({
        exitCode: exit.code,
        signal: exit.signal,
        stdout: stdout.toString(),
        stderr: stderr.toString(),
        timedOut,
        outputTruncated: flooded || stdout.isTruncated || stderr.isTruncated,
        durationMs: Math.round(performance.now() - started),
      });
    };
    const onAbort = (): void => killGroup(child.pid);
    const onData = (collector: OutputCollector) => (chunk: Buffer) => {
      collector.push(chunk);
      if (!flooded && stdout.totalBytes + stderr.totalBytes > options.killAfterOutputBytes) {
        flooded = true;
        killGroup(child.pid);
      }
    };

    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, options.timeoutMs);
    let drainTimer: NodeJS.Timeout | undefined;

    child.stdout.on("data", onData(stdout));
    child.stderr.on("data", onData(stderr));
    child.on("error", (error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      reject(error);
    });
    child.on("exit", (code, signal) => {
      exit = { code, signal };
      killGroup(child.pid);
      // A process that left the group may still hold the pipes; do not wait for it forever.
      drainTimer = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish();
      }, DRAIN_GRACE_MS);
    });
    child.on("close", finish);
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener("abort", onAbort, { once: true });
  });
}
