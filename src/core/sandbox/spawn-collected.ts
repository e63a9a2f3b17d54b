import { spawn, type StdioOptions } from "node:child_process";
import type { Readable, Writable } from "node:stream";
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
  readonly gate?: StartGate;
}

/**
 * A program that reports on fd 3 and then waits for one byte on fd 4 before it runs anything of
 * the command (bwrap's `--info-fd 3 --block-fd 4`). `admit` gets the report once fd 3 is closed and
 * may act on the waiting process (move it into a cgroup, give it a network); the byte is sent only
 * if it returns (or resolves to) true.
 * If it throws, the process group is killed and the call fails with that error.
 */
export interface StartGate {
  /** `spawnedPid` is the program spawned (bwrap, or the wrapper that runs it). */
  admit(report: string, spawnedPid: number): boolean | Promise<boolean>;
}

/** Errors of the gate pipes that only mean the program is already gone. */
const GONE_CODES = new Set(["EPIPE", "ECONNRESET"]);

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
  let gateError: unknown;

  return new Promise<CommandOutcome>((resolve, reject) => {
    const stdio: StdioOptions = options.gate
      ? ["ignore", "pipe", "pipe", "pipe", "pipe"]
      : ["ignore", "pipe", "pipe"];
    const child = spawn(file, [...args], {
      cwd: options.cwd,
      env: { ...options.env },
      detached: true,
      stdio,
    });
    const { stdout: out, stderr: err } = child;
    if (out === null || err === null) throw new Error("spawn did not create the output pipes.");
    let exit: { code: number | null; signal: string | null } | undefined;
    let settled = false;

    const finish = (): void => {
      if (settled || exit === undefined) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(drainTimer);
      options.signal?.removeEventListener("abort", onAbort);
      if (gateError !== undefined) {
        reject(
          gateError instanceof Error ? gateError : new Error("The start gate failed.", { cause: gateError }),
        );
        return;
      }
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

    out.on("data", onData(stdout));
    err.on("data", onData(stderr));
    if (options.gate) {
      const failGate = (error: unknown): void => {
        gateError ??= error;
        killGroup(child.pid);
      };
      holdUntilAdmitted(
        child.stdio[3] as Readable,
        child.stdio[4] as Writable,
        (report) => options.gate?.admit(report, child.pid ?? 0) ?? true,
        failGate,
      );
    }
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
        for (const stream of child.stdio) stream?.destroy();
        finish();
      }, DRAIN_GRACE_MS);
    });
    child.on("close", finish);
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function holdUntilAdmitted(
  report: Readable,
  release: Writable,
  admit: (report: string) => boolean | Promise<boolean>,
  fail: (error: unknown) => void,
): void {
  const onPipeError = (error: NodeJS.ErrnoException): void => {
    if (!GONE_CODES.has(error.code ?? "")) fail(error);
  };
  report.on("error", onPipeError);
  release.on("error", onPipeError);
  let text = "";
  report.setEncoding("utf8");
  report.on("data", (chunk: string) => {
    text += chunk;
  });
  const admitThenRelease = async (): Promise<void> => {
    let admitted: boolean;
    try {
      admitted = await admit(text);
    } catch (error) {
      release.destroy();
      fail(error);
      return;
    }
    if (admitted) release.end(Buffer.from([1]));
    else release.destroy();
  };
  report.on("end", () => void admitThenRelease());
}
