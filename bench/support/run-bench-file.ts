import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { BenchRow } from "../bench-types.js";
import type { ChildMessage } from "./bench-child.js";
import { parseBenchRows } from "./bench-row-schema.js";

export type BenchFileOutcome =
  | { readonly status: "ok"; readonly rows: readonly BenchRow[] }
  | { readonly status: "failed" | "timeout"; readonly error: string };

export interface BenchFileRun {
  readonly name: string;
  readonly file: string;
  readonly durationMs: number;
  readonly outcome: BenchFileOutcome;
}

export interface RunBenchFileOptions {
  readonly name: string;
  readonly file: string;
  readonly timeoutMs: number;
  /** Where the bench's own output goes; stderr by default so stdout keeps only the table or JSON. */
  readonly output?: NodeJS.WritableStream;
}

const CHILD_PATH = fileURLToPath(new URL("./bench-child.ts", import.meta.url));

/** Kills the child and everything it started (git, bwrap, servers): it leads its own process group. */
function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch (error) {
    // ESRCH: the group is gone already, which is what we wanted.
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
  }
}

/** Runs one bench file in a child process with a deadline; never rejects. */
export function runBenchFile(options: RunBenchFileOptions): Promise<BenchFileRun> {
  const started = performance.now();
  const output = options.output ?? process.stderr;
  return new Promise((resolve) => {
    let message: ChildMessage | null = null;
    let isTimedOut = false;
    const child = fork(CHILD_PATH, [options.file], {
      execArgv: ["--import", "tsx"],
      stdio: ["ignore", "pipe", "pipe", "ipc"],
      // Structured clone keeps NaN, which a bench uses for a figure it could not measure.
      serialization: "advanced",
      detached: true,
    });
    child.stdout?.pipe(output, { end: false });
    child.stderr?.pipe(output, { end: false });
    const timer = setTimeout(() => {
      isTimedOut = true;
      killGroup(child.pid);
    }, options.timeoutMs);
    // The child leads its own group, so a Ctrl-C at the terminal does not reach it: pass it on.
    const stopOnExit = (): void => killGroup(child.pid);
    const stopOnSignal = (signal: NodeJS.Signals): void => {
      killGroup(child.pid);
      process.exit(signal === "SIGINT" ? 130 : 143);
    };
    process.once("exit", stopOnExit);
    process.once("SIGINT", stopOnSignal);
    process.once("SIGTERM", stopOnSignal);
    child.on("message", (received: ChildMessage) => {
      message = received;
    });
    let isFinished = false;
    const finish = (outcome: BenchFileOutcome): void => {
      if (isFinished) return;
      isFinished = true;
      clearTimeout(timer);
      process.removeListener("exit", stopOnExit);
      process.removeListener("SIGINT", stopOnSignal);
      process.removeListener("SIGTERM", stopOnSignal);
      // Helpers the bench spawned may still hold the group; they go with it.
      killGroup(child.pid);
      resolve({
        name: options.name,
        file: options.file,
        durationMs: performance.now() - started,
        outcome,
      });
    };
    child.on("error", (error) => finish({ status: "failed", error: error.message }));
    const settle = (code: number | null, signal: NodeJS.Signals | null): void => {
      const received = message;
      if (isTimedOut) {
        finish({ status: "timeout", error: `no result within ${Math.round(options.timeoutMs / 1000)} s` });
      } else if (received?.type === "error") {
        finish({ status: "failed", error: received.message });
      } else if (received?.type === "rows") {
        const parsed = parseBenchRows(received.rows);
        finish(
          parsed.success
            ? { status: "ok", rows: parsed.value }
            : { status: "failed", error: `rows do not match BenchRow: ${parsed.error}` },
        );
      } else {
        finish({ status: "failed", error: `exited (${signal ?? `code ${code ?? "?"}`}) without a result` });
      }
    };
    // A message sent just before exit can arrive after the exit event; the channel closing is
    // the sign that nothing more will come.
    child.on("exit", (code, signal) => {
      if (!child.connected) settle(code, signal);
      else {
        const fallback = setTimeout(() => settle(code, signal), 1_000);
        child.once("disconnect", () => {
          clearTimeout(fallback);
          settle(code, signal);
        });
      }
    });
  });
}
