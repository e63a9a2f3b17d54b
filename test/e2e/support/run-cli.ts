import { spawn, type ChildProcess } from "node:child_process";
import { resolve } from "node:path";
import { waitUntil } from "../../support/wait-until.js";

const BIN = resolve("bin/agentforge.js");

export interface CliOutcome {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RunningCli {
  readonly child: ChildProcess;
  /** What the process printed so far. */
  output(): { readonly stdout: string; readonly stderr: string };
  readonly exited: Promise<CliOutcome>;
  /**
   * SIGKILL to the whole process group, as a crash or an OOM kill would do: no handler runs, no
   * file is flushed, no child is told.
   */
  killHard(): void;
}

/** Only what the CLI needs; the test's own environment (and any real key) stays out. */
function childEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, AGENTFORGE_CONFIG: "", ...env };
}

/** Starts the real `agentforge` CLI in its own process group, so a kill reaches all of it. */
export function startCli(args: readonly string[], env: NodeJS.ProcessEnv, input = ""): RunningCli {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: childEnvironment(env),
    stdio: ["pipe", "pipe", "pipe"],
    detached: true,
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin?.end(input);
  const exited = new Promise<CliOutcome>((resolvePromise, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => resolvePromise({ code, signal, stdout, stderr }));
  });
  return {
    child,
    output: () => ({ stdout, stderr }),
    exited,
    killHard() {
      if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
      process.kill(-child.pid, "SIGKILL");
    },
  };
}

export function runCli(args: readonly string[], env: NodeJS.ProcessEnv, input = ""): Promise<CliOutcome> {
  return startCli(args, env, input).exited;
}

/** Polls until `check` holds; fails with `description` after `timeoutMs` (the e2e tests' default). */
export function waitFor(
  check: () => boolean | Promise<boolean>,
  description: string,
  timeoutMs = 20_000,
): Promise<void> {
  return waitUntil(check, description, { timeoutMs, intervalMs: 25 });
}
