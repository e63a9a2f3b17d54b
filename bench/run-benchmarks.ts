/**
 * `npm run bench`: finds every `bench/*.bench.ts`, runs each in its own process with a deadline,
 * prints one table of all rows and writes them, with the machine, to bench/results/latest.json.
 *
 *   npm run bench                       every benchmark
 *   npm run bench -- --only sandbox     only files whose name contains "sandbox" (repeatable)
 *   npm run bench -- --json             print the JSON instead of the table
 *   npm run bench -- --timeout 300      per-file deadline in seconds (default 300)
 *
 * Exit code 1 when a bench file crashed or timed out; a missed target is a figure, not a failure.
 */
import { mkdir, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type { BenchRow } from "./bench-types.js";
import { describeMachine, type MachineDescription } from "./support/describe-machine.js";
import { formatBenchTable } from "./support/format-bench-table.js";
import { runBenchFile, type BenchFileRun } from "./support/run-bench-file.js";

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const RESULTS_FILE = path.join(BENCH_DIR, "results", "latest.json");
const SUFFIX = ".bench.ts";

export interface BenchReport {
  readonly generatedAt: string;
  readonly machine: MachineDescription;
  readonly runs: readonly {
    readonly name: string;
    readonly file: string;
    readonly durationMs: number;
    readonly status: BenchFileRun["outcome"]["status"];
    readonly error?: string;
  }[];
  readonly rows: readonly BenchRow[];
}

/** Bench files in a stable order, named after the file without `.bench.ts`. */
export async function discoverBenchFiles(directory: string): Promise<{ name: string; file: string }[]> {
  const names = (await readdir(directory)).filter((name) => name.endsWith(SUFFIX)).sort();
  return names.map((name) => ({ name: name.slice(0, -SUFFIX.length), file: path.join(directory, name) }));
}

/** A bench that did not run still gets a row, so the table shows the hole instead of hiding it. */
function rowsOf(run: BenchFileRun): readonly BenchRow[] {
  if (run.outcome.status === "ok") return run.outcome.rows;
  return [
    {
      benchmark: run.name,
      case: `${run.outcome.status}: ${run.outcome.error.split("\n")[0] ?? ""}`,
      value: Number.NaN,
      unit: "",
      targetMet: false,
    },
  ];
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      only: { type: "string", multiple: true },
      json: { type: "boolean", default: false },
      timeout: { type: "string", default: "300" },
    },
  });
  const timeoutMs = Number(values.timeout) * 1000;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    process.stderr.write(`--timeout expects a number of seconds, got ${values.timeout}\n`);
    return 2;
  }
  const filters = values.only ?? [];
  const files = (await discoverBenchFiles(BENCH_DIR)).filter(
    (entry) => filters.length === 0 || filters.some((filter) => entry.name.includes(filter)),
  );
  if (files.length === 0) {
    process.stderr.write(`no bench file matches ${filters.join(", ")}\n`);
    return 2;
  }

  const runs: BenchFileRun[] = [];
  for (const entry of files) {
    process.stderr.write(`\n== ${entry.name} ==\n`);
    const run = await runBenchFile({ ...entry, timeoutMs });
    const seconds = (run.durationMs / 1000).toFixed(1);
    const note = run.outcome.status === "ok" ? "" : `: ${run.outcome.error}`;
    process.stderr.write(`== ${entry.name}: ${run.outcome.status} in ${seconds} s${note}\n`);
    runs.push(run);
  }

  const report: BenchReport = {
    generatedAt: new Date().toISOString(),
    machine: await describeMachine(),
    runs: runs.map((run) => ({
      name: run.name,
      file: path.relative(process.cwd(), run.file),
      durationMs: Math.round(run.durationMs),
      status: run.outcome.status,
      ...(run.outcome.status === "ok" ? {} : { error: run.outcome.error }),
    })),
    rows: runs.flatMap(rowsOf),
  };
  const json = JSON.stringify(report, null, 2);
  await mkdir(path.dirname(RESULTS_FILE), { recursive: true });
  await writeFile(RESULTS_FILE, `${json}\n`);

  if (values.json) process.stdout.write(`${json}\n`);
  else {
    const { machine } = report;
    process.stdout.write(
      `\n${machine.cpuCount} × ${machine.cpuModel}, ${machine.memoryGiB} GiB, Node ${machine.node}, ${machine.os}, ${report.generatedAt}\n\n`,
    );
    process.stdout.write(`${formatBenchTable(report.rows)}\n`);
    process.stderr.write(`\nrows written to ${path.relative(process.cwd(), RESULTS_FILE)}\n`);
  }
  return runs.every((run) => run.outcome.status === "ok") ? 0 : 1;
}

process.exitCode = await main();
