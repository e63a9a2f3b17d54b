export { loadEvalTasks, resolveEvalTasks, type EvalTask, type EvalTaskModel } from "./load-eval-tasks.js";
export { judgeEvalRun, type EvalObservation } from "./judge-eval-run.js";
export { runEvalTask, type EvalTaskOutcome, type RunEvalTaskOptions } from "./run-eval-task.js";
export {
  DEFAULT_EVAL_CONCURRENCY,
  EVAL_REPORT_SCHEMA,
  formatEvalLine,
  formatEvalTotals,
  runEvalSuite,
  type EvalReport,
  type RunEvalSuiteOptions,
} from "./run-eval-suite.js";
