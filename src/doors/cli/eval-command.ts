import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import {
  formatEvalLine,
  formatEvalTotals,
  loadEvalTasks,
  runEvalSuite,
  type EvalReport,
} from "../../core/eval/index.js";
import { EXIT_CODES, type CliIo } from "./cli-io.js";

export interface EvalCommandOptions {
  readonly json?: boolean;
  readonly report?: string;
  readonly concurrency?: number;
}

/**
 * `agentforge eval TASKS.json`: one line per task as it finishes, then `N passed, N failed`.
 * With --json the report goes to stdout and the lines to stderr, so the output stays parseable.
 */
export async function evalCommand(
  tasksFile: string,
  options: EvalCommandOptions,
  io: CliIo,
): Promise<number> {
  const loaded = await loadEvalTasks(tasksFile);
  if (!loaded.success) {
    io.stderr(`agentforge eval: ${loaded.error}\n`);
    return EXIT_CODES.usage;
  }
  const say = options.json ? io.stderr : io.stdout;
  const traceDir = options.report ? `${stripJsonExtension(options.report)}.traces` : undefined;
  if (traceDir) await mkdir(traceDir, { recursive: true });
  const report: EvalReport = await runEvalSuite(loaded.value, {
    tasksFile: path.resolve(tasksFile),
    env: io.env,
    ...(options.concurrency ? { concurrency: options.concurrency } : {}),
    ...(traceDir ? { traceDir } : {}),
    onTaskDone: (outcome) => say(`${formatEvalLine(outcome)}\n`),
  });
  const json = `${JSON.stringify(report, null, 2)}\n`;
  if (options.report) {
    await mkdir(path.dirname(path.resolve(options.report)), { recursive: true });
    await writeFile(options.report, json);
    say(`report: ${options.report} (traces in ${traceDir ?? "none"})\n`);
  }
  say(`${formatEvalTotals(report)}\n`);
  if (options.json) io.stdout(json);
  return report.failed === 0 ? EXIT_CODES.ok : EXIT_CODES.failure;
}

function stripJsonExtension(file: string): string {
  return file.endsWith(".json") ? file.slice(0, -".json".length) : file;
}
