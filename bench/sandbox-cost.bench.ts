import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { createSandboxRunner, type SandboxRunner } from "../src/core/sandbox/create-sandbox-runner.js";
import { detectSandbox } from "../src/core/sandbox/detect-sandbox.js";
import type { Benchmark, BenchRow } from "./bench-types.js";
import { roundTo, summarizeSamples } from "./support/summarize-samples.js";

const ITERATIONS = 200;
const WARMUP = 10;
const FIRST_COMMAND_RUNS = 10;
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

async function time(action: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await action();
  return performance.now() - started;
}

/**
 * Runs the cases in turns (plain, warm, fresh; then rotated) rather than one block after the
 * other, so a burst of load on this shared machine hits every case alike.
 */
async function measureInTurns(
  cases: ReadonlyArray<readonly [string, () => Promise<unknown>]>,
): Promise<Map<string, number[]>> {
  const samples = new Map<string, number[]>(cases.map(([name]) => [name, []]));
  for (let round = -WARMUP; round < ITERATIONS; round += 1) {
    for (let turn = 0; turn < cases.length; turn += 1) {
      const [name, action] = cases[(turn + Math.max(round, 0)) % cases.length] ?? cases[0]!;
      const elapsed = await time(action);
      if (round >= 0) samples.get(name)?.push(elapsed);
    }
  }
  return samples;
}

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
  const warm = createSandboxRunner({ mode: "bwrap", workspaceRoot: workspace });
  const fresh = createSandboxRunner({ mode: "bwrap", workspaceRoot: workspace, reuseSandbox: false });
  const limit = `process limit: ${detection.processLimit ?? "?"}`;
  const rows: BenchRow[] = [];
  const runOn = (runner: SandboxRunner, command: string) => () =>
    runner.run(command, { cwd: workspace, timeoutMs: 10_000 });
  try {
    for (const command of ["true", "echo hi"]) {
      const samples = await measureInTurns([
        ["plain", () => plainSpawn(command, workspace)],
        ["warm sandbox (default)", runOn(warm, command)],
        ["fresh sandbox per command", runOn(fresh, command)],
      ]);
      const plain = summarizeSamples(samples.get("plain") ?? []);
      for (const name of ["warm sandbox (default)", "fresh sandbox per command"]) {
        const sandboxed = summarizeSamples(samples.get(name) ?? []);
        for (const statistic of ["mean", "median"] as const) {
          const added = sandboxed[statistic] - plain[statistic];
          rows.push({
            benchmark: "sandbox-cost",
            case: `${command}, ${name} (${statistic}, n=${ITERATIONS}, ${limit})`,
            value: roundTo(sandboxed[statistic]),
            unit: "ms",
            baseline: roundTo(plain[statistic]),
            baselineLabel: "plain spawn",
            ratio: roundTo(sandboxed[statistic] / plain[statistic]),
            target: `added ${roundTo(added)} ms <= ${TARGET_ADDED_MS} ms`,
            targetMet: added <= TARGET_ADDED_MS,
          });
        }
      }
    }
    // The warm sandbox is built by a runner's first command in a workspace: paid once per run.
    const firsts: number[] = [];
    for (let index = 0; index < FIRST_COMMAND_RUNS; index += 1) {
      const runner = createSandboxRunner({ mode: "bwrap", workspaceRoot: workspace });
      firsts.push(await time(runOn(runner, "true")));
      runner.close();
    }
    rows.push({
      benchmark: "sandbox-cost",
      case: `first command of a runner, which starts its warm sandbox (median, n=${FIRST_COMMAND_RUNS}, ${limit})`,
      value: roundTo(summarizeSamples(firsts).median),
      unit: "ms",
    });
  } finally {
    warm.close();
    fresh.close();
    await rm(workspace, { recursive: true, force: true });
  }
  return rows;
};

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  for (const row of await run()) console.log(JSON.stringify(row));
}
