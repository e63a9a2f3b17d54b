import type { AgentRunner, RunResult } from "../../core/agent-run.js";
import type { LoopEventListener } from "../../core/loop/index.js";

export interface ObservedRunner {
  /** The runner to hand to the job: every run and resume it makes is seen by this step. */
  readonly runner: AgentRunner;
  /** The trace of the last run this step made, or undefined when it made none (or none was written). */
  readonly lastTracePath: () => string | undefined;
}

/**
 * Wraps the core's runner so the step sees its own runs: their events go to the step's log as
 * well as to the job's listener, and the trace the step reports is the one its own run wrote,
 * never a file that happens to lie where a trace would be.
 */
export function observeStepRuns(runner: AgentRunner, onEvent: LoopEventListener): ObservedRunner {
  let tracePath: string | undefined;
  const both =
    (listener: LoopEventListener | undefined): LoopEventListener =>
    (event) => {
      onEvent(event);
      listener?.(event);
    };
  const record = (result: RunResult): RunResult => {
    tracePath = result.tracePath ?? undefined;
    return result;
  };
  return {
    runner: {
      run: async (task, options = {}) =>
        record(await runner.run(task, { ...options, onEvent: both(options.onEvent) })),
      resume: async (runId, options = {}) =>
        record(await runner.resume(runId, { ...options, onEvent: both(options.onEvent) })),
      inspect: (runId) => runner.inspect(runId),
      exportRun: (runId) => runner.exportRun(runId),
      importRun: (handOver, placement) => runner.importRun(handOver, placement),
      redact: (text) => runner.redact(text),
      addSecret: (value) => runner.addSecret(value),
    },
    lastTracePath: () => tracePath,
  };
}
