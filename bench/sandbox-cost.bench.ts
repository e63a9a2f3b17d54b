import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { createSandboxRunner } from "../src/core/sandbox/create-sandbox-runner.js";
import { detectSandbox } from "../src/core/sandbox/detect-sandbox.js";
import type { Benchmark, BenchRow } from "./bench-types.js";

const ITERATIONS = 100;
const WARMUP = 5;
const TARGET_ADDED_MS = 5;

function plainSpawn(command: string, cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["--noprofile", "--norc", "-c", command], {
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout.resume();
    child.stderr.resume();
    child.on("error", reject);
    child.on("close", () => resolve());
  });
}

async function measure(action: () => Promise<unknown>): Promise<{ mean: number; p50: number }> {
  for (let index = 0; index < WARMUP; index += 1) await action();
  const samples: number[] = [];
  for (let index = 0; index < ITERATIONS; index += 1) {
    const started = performance.now();
    await action();
    samples.push(performance.now() - started);
  }
  samples.sort((left, right) => left - right);
  const mean = samples.reduce((sum, value) => sum + value, 0) / samples.length;
  return { mean, p50: samples[Math.floor(samples.length / 2)] ?? Number.NaN };
}

const round = (value: number): number => Math.round(value * 100) / 100;

/** Cost of one command under the bwrap sandbox compared with a plain spawn of the same bash command. */
export const run: Benchmark = async () => {
  const detection = await detectSandbox();
  if (!detection.available) {
    return [
      {
        benchmark: "sandbox-cost",
        case: "bwrap unavailable",
        value: Number.NaN,
        unit: "ms",
        target: detection.problem ?? "",
        targetMet: false,
      },
    ];
  }
  const workspace = await mkdtemp(path.join(os.tmpdir(), "agentforge-bench-"));
  const runner = createSandboxRunner({ mode: "bwrap", workspaceRoot: workspace });
  const rows: BenchRow[] = [];
  try {
    for (const command of ["true", "echo hi"]) {
      const plain = await measure(() => plainSpawn(command, workspace));
      const sandboxed = await measure(() => runner.run(command, { cwd: workspace, timeoutMs: 10_000 }));
      for (const statistic of ["mean", "p50"] as const) {
        const added = sandboxed[statistic] - plain[statistic];
        rows.push({
          benchmark: "sandbox-cost",
          case: `${command} (${statistic}, n=${ITERATIONS}, process limit: ${detection.processLimit ?? "?"})`,
          value: round(sandboxed[statistic]),
          unit: "ms",
          baseline: round(plain[statistic]),
          baselineLabel: "plain spawn",
          ratio: round(sandboxed[statistic] / plain[statistic]),
          target: `added ${round(added)} ms <= ${TARGET_ADDED_MS} ms`,
          targetMet: added <= TARGET_ADDED_MS,
        });
      }
    }
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
  return rows;
};

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  for (const row of await run()) console.log(JSON.stringify(row));
}
