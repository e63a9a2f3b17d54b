import type { CommandOutcome } from "../tools/tool.js";
import { EndMarkerScanner } from "./end-marker-scanner.js";
import { OutputCollector } from "./output-collector.js";
import { warmEndMarker } from "./warm-sandbox-protocol.js";

/** One command in a warm sandbox, from its request until its outcome. */
export interface WarmCommandRun {
  readonly nonce: string;
  readonly stdout: OutputCollector;
  readonly stderr: OutputCollector;
  /** Each stream ends for this command at its end marker, not at EOF: the pipes outlive commands. */
  readonly stdoutEnd: EndMarkerScanner;
  readonly stderrEnd: EndMarkerScanner;
  readonly killAfterOutputBytes: number;
  /** What the sandbox program reported once the command and its leftovers were gone. */
  status?: { readonly code: number; readonly clean: boolean };
  killed: boolean;
  timedOut: boolean;
  flooded: boolean;
  /** Stops the timers and listeners of the run. */
  cleanup(): void;
  /** Settles the caller's promise once. */
  resolve(outcome: CommandOutcome): void;
  graceTimer?: NodeJS.Timeout;
}

export interface WarmCommandRunOptions {
  readonly nonce: string;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  readonly killAfterOutputBytes: number;
  readonly signal?: AbortSignal;
  /** Called on timeout and abort; the run is marked first. */
  readonly kill: (run: WarmCommandRun) => void;
  readonly resolve: (outcome: CommandOutcome) => void;
}

export function createWarmCommandRun(options: WarmCommandRunOptions): WarmCommandRun {
  const marker = warmEndMarker(options.nonce);
  const onAbort = (): void => options.kill(run);
  const timer = setTimeout(() => {
    run.timedOut = true;
    options.kill(run);
  }, options.timeoutMs);
  const run: WarmCommandRun = {
    nonce: options.nonce,
    stdout: new OutputCollector(Math.floor(options.maxOutputBytes / 2)),
    stderr: new OutputCollector(Math.ceil(options.maxOutputBytes / 2)),
    stdoutEnd: new EndMarkerScanner(marker),
    stderrEnd: new EndMarkerScanner(marker),
    killAfterOutputBytes: options.killAfterOutputBytes,
    killed: false,
    timedOut: false,
    flooded: false,
    cleanup(): void {
      clearTimeout(timer);
      clearTimeout(run.graceTimer);
      options.signal?.removeEventListener("abort", onAbort);
    },
    resolve: options.resolve,
  };
  if (options.signal?.aborted) queueMicrotask(onAbort);
  else options.signal?.addEventListener("abort", onAbort, { once: true });
  return run;
}

/** A killed command reports like a cold one whose process group got SIGKILL: no exit code. */
export function toWarmOutcome(
  run: WarmCommandRun,
  code: number | null,
  killed: boolean,
  startedAt: number,
): CommandOutcome {
  // Without its end marker (the sandbox was torn down), what was held back is still the command's.
  for (const [scanner, collector] of [
    [run.stdoutEnd, run.stdout],
    [run.stderrEnd, run.stderr],
  ] as const) {
    const rest = scanner.flush();
    if (rest.length > 0) collector.push(rest);
  }
  return {
    exitCode: killed ? null : code,
    signal: killed ? "SIGKILL" : null,
    stdout: run.stdout.toString(),
    stderr: run.stderr.toString(),
    timedOut: run.timedOut,
    outputTruncated: run.flooded || run.stdout.isTruncated || run.stderr.isTruncated,
    durationMs: Math.round(performance.now() - startedAt),
  };
}
