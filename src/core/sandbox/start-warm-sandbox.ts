import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { Socket } from "node:net";
import type { Readable, Writable } from "node:stream";
import type { CommandOutcome } from "../tools/tool.js";
import { killChildProcesses, listChildProcesses } from "./list-child-processes.js";
import { parseBwrapChildPid } from "./parse-bwrap-child-pid.js";
import type { PidsCgroupLease } from "./pids-cgroup-pool.js";
import { SandboxError } from "./sandbox-error.js";
import { createWarmCommandRun, toWarmOutcome, type WarmCommandRun } from "./warm-command-run.js";
import { encodeWarmRequest, parseWarmStatusLine } from "./warm-sandbox-protocol.js";

export interface WarmSandboxCommand {
  /** The bash script, limits included. */
  readonly script: string;
  readonly cwd: string;
  /** Variables that differ from the sandbox's own environment, and names it has that the command must not. */
  readonly assignments: readonly string[];
  readonly removals: readonly string[];
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  readonly killAfterOutputBytes: number;
  readonly signal?: AbortSignal;
}

/** One long-lived bwrap that runs commands one at a time inside the same namespaces and mounts. */
export interface WarmSandbox {
  readonly key: string;
  readonly isBusy: boolean;
  readonly isOpen: boolean;
  run(command: WarmSandboxCommand): Promise<CommandOutcome>;
  /** Kills the sandbox and everything in it. */
  close(): void;
}

export interface StartWarmSandboxOptions {
  /** What the sandbox was built for (mounts, workspace, git protection); a command with another key needs another sandbox. */
  readonly key: string;
  readonly bwrapPath: string;
  /** bwrap's arguments, ending in the warm sandbox program, with `--info-fd 3` (and `--block-fd 4` with a lease). */
  readonly args: readonly string[];
  readonly environment: Readonly<Record<string, string>>;
  readonly cwd: string;
  /** The bash binary its program runs from, written to the sandbox through fd 7. */
  readonly shell: Buffer;
  /** Its pids cgroup, held for the sandbox's whole life. */
  readonly lease?: PidsCgroupLease;
  readonly startTimeoutMs?: number;
}

/** After asking for a kill, how long the sandbox may take to report before it is torn down. */
const KILL_GRACE_MS = 2000;

/** What a command cancelled before it was sent reports: killed, as a cancelled one would be. */
const NOT_STARTED: CommandOutcome = {
  exitCode: null,
  signal: "SIGKILL",
  stdout: "",
  stderr: "",
  timedOut: false,
  outputTruncated: false,
  durationMs: 0,
};
const GONE_CODES = new Set(["EPIPE", "ECONNRESET"]);

function unrefStream(stream: unknown): void {
  if (stream instanceof Socket) stream.unref();
}

/**
 * Starts the sandbox and waits until its program is ready. Handles are unref'd: an idle warm
 * sandbox never keeps the harness alive, and `--die-with-parent` ends it with the harness.
 */
export function startWarmSandbox(options: StartWarmSandboxOptions): Promise<WarmSandbox> {
  const child = spawn(options.bwrapPath, [...options.args], {
    cwd: options.cwd,
    env: { ...options.environment },
    detached: true,
    stdio: ["pipe", "pipe", "pipe", "pipe", "pipe", "pipe", "pipe", "pipe"],
  });
  const [requests, out, err, info, block, status, , shellFile] = child.stdio as unknown as [
    Writable,
    Readable,
    Readable,
    Readable,
    Writable,
    Readable,
    Writable,
    Writable,
  ];
  shellFile.end(options.shell);
  child.unref();
  for (const stream of child.stdio) unrefStream(stream);

  let serverPid: number | undefined;
  let ready = false;
  let open = true;
  let current: WarmCommandRun | undefined;
  let startedAt = 0;
  let startError: string[] = [];
  let onStarted: ((error?: Error) => void) | undefined;

  const close = (): void => {
    if (!open) return;
    open = false;
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
      }
    }
  };

  const finish = (active: WarmCommandRun, code: number | null, forcedKill: boolean): void => {
    if (current !== active) return;
    current = undefined;
    active.cleanup();
    active.resolve(toWarmOutcome(active, code, active.killed || forcedKill, startedAt));
  };

  const settleIfComplete = (active: WarmCommandRun): void => {
    if (!active.stdoutEnd.isDone || !active.stderrEnd.isDone || active.status === undefined) return;
    // The program says the command and its leftovers are gone; the kernel must agree, or the
    // report was forged from inside and the sandbox is not trusted any more.
    const leftovers = serverPid === undefined ? [] : listChildProcesses(serverPid);
    if (leftovers.length > 0 || !active.status.clean) close();
    finish(active, active.status.code, leftovers.length > 0);
  };

  const requestKill = (active: WarmCommandRun): void => {
    if (active.killed) return;
    active.killed = true;
    if (serverPid !== undefined) killChildProcesses(serverPid);
    // The program sweeps what is left and reports; if it does not, the whole sandbox goes.
    active.graceTimer = setTimeout(() => {
      if (current !== active) return;
      close();
      finish(active, null, true);
    }, KILL_GRACE_MS);
  };

  const onOutput = (which: "stdout" | "stderr") => (chunk: Buffer) => {
    const active = current;
    // Between commands nothing should write; a stray byte cannot be attributed and is dropped.
    if (active === undefined) return;
    const scanner = which === "stdout" ? active.stdoutEnd : active.stderrEnd;
    const collector = which === "stdout" ? active.stdout : active.stderr;
    const before = scanner.push(chunk);
    if (before.length > 0) collector.push(before);
    if (
      !active.flooded &&
      active.stdout.totalBytes + active.stderr.totalBytes > active.killAfterOutputBytes
    ) {
      active.flooded = true;
      requestKill(active);
    }
    if (scanner.isDone) settleIfComplete(active);
  };

  let statusText = "";
  const onStatusLine = (line: string): void => {
    const parsed = parseWarmStatusLine(line);
    if (parsed?.kind === "ready" && !ready) {
      ready = true;
      if (serverPid !== undefined) onStarted?.();
      return;
    }
    const active = current;
    if (parsed?.kind === "started" && active !== undefined && parsed.nonce === active.nonce) {
      // A kill asked for between the request and the fork found nothing to kill: this one does.
      if (active.killed && serverPid !== undefined) killChildProcesses(serverPid);
      return;
    }
    if (parsed?.kind !== "done" || active === undefined || parsed.nonce !== active.nonce) {
      // Only the program writes here; anything else means a command reached its descriptor.
      close();
      if (active) finish(active, null, true);
      return;
    }
    active.status = { code: parsed.code, clean: parsed.clean };
    settleIfComplete(active);
  };

  out.on("data", onOutput("stdout"));
  err.on("data", (chunk: Buffer) => {
    if (!ready) startError.push(chunk.toString("utf8"));
    onOutput("stderr")(chunk);
  });
  status.setEncoding("utf8");
  status.on("data", (chunk: string) => {
    statusText += chunk;
    let newline = statusText.indexOf("\n");
    while (newline >= 0) {
      onStatusLine(statusText.slice(0, newline));
      statusText = statusText.slice(newline + 1);
      newline = statusText.indexOf("\n");
    }
  });
  let infoText = "";
  info.setEncoding("utf8");
  info.on("data", (chunk: string) => {
    infoText += chunk;
  });
  info.on("end", () => {
    if (infoText.trim() === "") return;
    const parsed = parseBwrapChildPid(infoText);
    if (!parsed.success) {
      onStarted?.(new SandboxError("SANDBOX_UNAVAILABLE", parsed.error, "Use bubblewrap 0.1.8 or later."));
      close();
      return;
    }
    serverPid = parsed.value;
    try {
      options.lease?.admit(serverPid);
    } catch (error) {
      onStarted?.(
        new SandboxError(
          "SANDBOX_UNAVAILABLE",
          "The warm sandbox could not be put under its process limit.",
          "Check the pids cgroup.",
          {
            cause: error,
          },
        ),
      );
      close();
      return;
    }
    // Only now may the sandbox go on: everything it forks is inside the cgroup.
    if (options.lease) block.end(Buffer.from([1]));
    else block.destroy();
    if (ready) onStarted?.();
  });
  for (const stream of child.stdio) {
    stream?.on("error", (error: NodeJS.ErrnoException) => {
      if (GONE_CODES.has(error.code ?? "")) return;
      close();
      onStarted?.(error);
    });
  }
  child.on("exit", () => {
    open = false;
    options.lease?.release();
    onStarted?.(
      new SandboxError(
        "SANDBOX_UNAVAILABLE",
        `The warm sandbox ended before it was ready: ${startError.join("").trim() || "no message"}`,
        "Check that bubblewrap can create a sandbox here (agentforge doctor).",
      ),
    );
    if (current) finish(current, null, true);
  });

  const sandbox: WarmSandbox = {
    key: options.key,
    get isBusy(): boolean {
      return current !== undefined;
    },
    get isOpen(): boolean {
      return open;
    },
    close,
    run(command: WarmSandboxCommand): Promise<CommandOutcome> {
      if (!open || current !== undefined)
        return Promise.reject(new Error("The warm sandbox is closed or busy; the caller checks first."));
      // Cancelled while the sandbox was being found or started: the command is never sent. Sent,
      // it would start after the kill meant for it had found nothing to kill.
      if (command.signal?.aborted) return Promise.resolve(NOT_STARTED);
      const nonce = randomBytes(16).toString("hex");
      const request = encodeWarmRequest({ nonce, ...command });
      return new Promise<CommandOutcome>((resolve) => {
        startedAt = performance.now();
        current = createWarmCommandRun({
          nonce,
          timeoutMs: command.timeoutMs,
          maxOutputBytes: command.maxOutputBytes,
          killAfterOutputBytes: command.killAfterOutputBytes,
          ...(command.signal ? { signal: command.signal } : {}),
          kill: requestKill,
          resolve,
        });
        requests.write(request);
      });
    },
  };

  return new Promise<WarmSandbox>((resolve, reject) => {
    const timer = setTimeout(() => {
      close();
      onStarted?.(
        new SandboxError(
          "SANDBOX_UNAVAILABLE",
          "The warm sandbox did not start in time.",
          "Check the machine's load.",
        ),
      );
    }, options.startTimeoutMs ?? 10_000);
    onStarted = (error?: Error): void => {
      onStarted = undefined;
      clearTimeout(timer);
      startError = [];
      if (error) reject(error);
      else resolve(sandbox);
    };
  });
}
