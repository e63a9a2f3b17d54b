import type { EvalTask } from "./load-eval-tasks.js";
import { runEvalTask, type EvalTaskOutcome, type RunEvalTaskOptions } from "./run-eval-task.js";

export const EVAL_REPORT_SCHEMA = "agentforge-eval-report/1";

export interface EvalReport {
  readonly schema: typeof EVAL_REPORT_SCHEMA;
  readonly tasksFile: string;
  readonly startedAt: string;
  readonly durationMs: number;
  readonly concurrency: number;
  readonly passed: number;
  readonly failed: number;
  /** In the order of the tasks file, whatever order they finished in. */
  readonly tasks: readonly EvalTaskOutcome[];
}

export interface RunEvalSuiteOptions extends RunEvalTaskOptions {
  readonly tasksFile: string;
  readonly concurrency?: number;
  /** Called as each task finishes (in finishing order), for progress lines. */
  readonly onTaskDone?: (outcome: EvalTaskOutcome) => void;
  /** Runs one task; tests pass their own. */
  readonly runTask?: (task: EvalTask, options: RunEvalTaskOptions) => Promise<EvalTaskOutcome>;
}

export const DEFAULT_EVAL_CONCURRENCY = 2;

/** Runs tasks with at most `concurrency` at once; each task is isolated, so order does not matter. */
export async function runEvalSuite(
  tasks: readonly EvalTask[],
  options: RunEvalSuiteOptions,
): Promise<EvalReport> {
  const startedAt = new Date();
  const started = performance.now();
  const concurrency = Math.max(1, Math.min(options.concurrency ?? DEFAULT_EVAL_CONCURRENCY, tasks.length));
  const runTask = options.runTask ?? runEvalTask;
  const taskOptions: RunEvalTaskOptions = {
    env: options.env,
    ...(options.traceDir ? { traceDir: options.traceDir } : {}),
    ...(options.tempRoot ? { tempRoot: options.tempRoot } : {}),
  };
  const outcomes: (EvalTaskOutcome | undefined)[] = new Array<EvalTaskOutcome | undefined>(tasks.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < tasks.length) {
      const index = next++;
      const task = tasks[index];
      if (task === undefined) return;
      let outcome: EvalTaskOutcome;
      try {
        outcome = await runTask(task, taskOptions);
      } catch (error) {
        // One broken task (an unreadable fixture, a full disk) fails itself, not the suite.
        outcome = failedOutcome(task.id, error);
      }
      outcomes[index] = outcome;
      options.onTaskDone?.(outcome);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, () => worker()));
  const finished = outcomes.filter((outcome): outcome is EvalTaskOutcome => outcome !== undefined);
  const passed = finished.filter((outcome) => outcome.passed).length;
  return {
    schema: EVAL_REPORT_SCHEMA,
    tasksFile: options.tasksFile,
    startedAt: startedAt.toISOString(),
    durationMs: Math.round(performance.now() - started),
    concurrency,
    passed,
    failed: finished.length - passed,
    tasks: finished,
  };
}

/** `PASS id (final_answer, 5 turns, 1234 tokens)` or `FAIL id: reason; reason`. */
export function formatEvalLine(outcome: EvalTaskOutcome): string {
  if (outcome.passed)
    return `PASS ${outcome.id} (${outcome.exitReason ?? "no exit"}, ${outcome.turns} turns, ${outcome.totalTokens} tokens)`;
  return `FAIL ${outcome.id}: ${outcome.failures.join("; ")}`;
}

export function formatEvalTotals(report: Pick<EvalReport, "passed" | "failed">): string {
  return `${report.passed} passed, ${report.failed} failed`;
}

function failedOutcome(id: string, error: unknown): EvalTaskOutcome {
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return {
    id,
    passed: false,
    failures: [`the task could not be run: ${message}`],
    exitReason: null,
    turns: 0,
    totalTokens: 0,
    costUsd: 0,
    durationMs: 0,
    finalAnswer: null,
    filesChanged: [],
    eventCounts: {},
    errorTypesSeen: [],
    toolsRefused: [],
    commandsRefused: [],
    toolCalls: [],
    contextTokens: [],
    errorMessage: message,
  };
}
