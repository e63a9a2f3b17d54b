import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { startCli, waitFor, type CliOutcome, type RunningCli } from "../support/run-cli.js";

export interface AppProcess {
  readonly name: string;
  readonly cli: RunningCli;
  readonly pid: number;
  /** serve: where webhooks go; worker: where `/healthz` and `/metrics` answer. */
  readonly url: string;
  /** AGENTFORGE_DATA_DIR: a worker's own disk, as on a machine of its own. */
  readonly dataDir: string;
}

const READY_LINES = {
  serve: /AgentForge App listening on (http:\/\/\S+) /,
  worker: /AgentForge worker started \(health at (http:\/\/\S+)\/healthz/,
} as const;

/** Starts `agentforge serve` or `agentforge worker` and waits until it says where it answers. */
export async function startAppProcess(
  command: "serve" | "worker",
  name: string,
  env: NodeJS.ProcessEnv,
): Promise<AppProcess> {
  const cli = startCli([command], env);
  const ready = READY_LINES[command];
  try {
    await waitFor(
      () => {
        if (cli.child.exitCode !== null) throw new Error(`${name} exited: ${cli.output().stderr}`);
        return ready.test(cli.output().stdout);
      },
      `${name} to start`,
      30_000,
    );
  } catch (error) {
    cli.killHard();
    throw error;
  }
  const url = ready.exec(cli.output().stdout)![1]!;
  return { name, cli, pid: cli.child.pid!, url, dataDir: env.AGENTFORGE_DATA_DIR ?? "" };
}

/** Whether a worker holds a record of the task on its disk: it claimed the task and is running it. */
export function holdsTaskRecord(appProcess: AppProcess, taskId: string): boolean {
  return existsSync(path.join(appProcess.dataDir, "tasks", `${taskId}.json`));
}

export interface TraceRecord {
  readonly record?: string;
  readonly run_id?: string;
  readonly event_type?: string;
  readonly attributes?: Readonly<Record<string, unknown>>;
}

/** The lines of the agent run's trace for a task, on the worker's disk (whole lines only). */
export function readTaskTrace(appProcess: AppProcess, taskId: string): TraceRecord[] {
  const file = path.join(appProcess.dataDir, "tasks", `${taskId}.trace.jsonl`);
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .slice(0, -1)
    .map((line) => JSON.parse(line) as TraceRecord);
}

export interface LogRecord {
  readonly msg?: string;
  readonly pid?: number;
  readonly taskId?: string;
  readonly [field: string]: unknown;
}

/** The JSON log records a process wrote (LOG_FORMAT=json); other lines are skipped. */
export function readLogRecords(appProcess: AppProcess): LogRecord[] {
  const lines = appProcess.cli.output().stdout.split("\n");
  // The last piece is a line still being written (or empty): only whole lines parse.
  return lines
    .slice(0, -1)
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as LogRecord);
}

export function findLogRecords(appProcess: AppProcess, message: string): LogRecord[] {
  return readLogRecords(appProcess).filter((record) => record.msg === message);
}

/**
 * One sample of a Prometheus counter or gauge from `/metrics`; 0 when the series is absent (a
 * counter nobody incremented), but the metric itself must exist, so a misspelt name fails.
 */
export async function readMetric(baseUrl: string, series: string): Promise<number> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const family = series.split("{")[0]!;
  if (!text.includes(`\n# TYPE ${family} `)) throw new Error(`${baseUrl}/metrics has no ${family}`);
  const line = text.split("\n").find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

/** SIGTERM, as an orchestrator stops a container; resolves with how it ended and how long it took. */
export async function stopWithSigterm(
  appProcess: AppProcess,
  timeoutMs: number,
): Promise<CliOutcome & { readonly elapsedMs: number }> {
  const startedAt = Date.now();
  appProcess.cli.child.kill("SIGTERM");
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${appProcess.name} still running ${timeoutMs} ms after SIGTERM`)),
      timeoutMs,
    );
  });
  try {
    const outcome = await Promise.race([appProcess.cli.exited, timedOut]);
    return { ...outcome, elapsedMs: Date.now() - startedAt };
  } finally {
    clearTimeout(timer);
  }
}
