/**
 * CPU of one GitHub call in the App's process: Octokit (as Probot builds it, retries and the write
 * throttle off) over the App's fetch (`createGitHubFetch`, Node's HTTP client) against the same
 * Octokit over the global `fetch`. The GitHub stand-in answers from another process, so only the
 * caller's CPU is counted: what triage and the workers spend beside the webhook intake.
 *
 *   npx tsx bench/run-benchmarks.ts --only github-fetch
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { ProbotOctokit } from "probot";
import type { Benchmark, BenchRow } from "./bench-types.js";
import { roundTo, summarizeSamples } from "./support/summarize-samples.js";
import { createGitHubFetch } from "../src/doors/github-app/create-github-fetch.js";

const BENCHMARK = "github-fetch";
const WARMUP_CALLS = 1_000;
const CALLS = 4_000;
const IN_FLIGHT = 16;
const ROUNDS = 3;
const STAND_IN_ENTRY = fileURLToPath(new URL("./support/fake-github-api-process.ts", import.meta.url));

type Octokit = InstanceType<typeof ProbotOctokit>;

function octokitWith(baseUrl: string, fetch: typeof globalThis.fetch, throttled = false): Octokit {
  return new ProbotOctokit({
    baseUrl,
    auth: { token: "ghs_benchToken0123456789abcdefABCDEFGHIJ" },
    request: { fetch },
    retry: { enabled: false },
    // Probot's throttle (Bottleneck, in this process as `serve` runs it without REDIS_URL), or none.
    throttle: throttled
      ? { onRateLimit: () => false, onSecondaryRateLimit: () => false }
      : { enabled: false },
  });
}

async function call(octokit: Octokit, count: number): Promise<void> {
  let started = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (started < count) {
        started += 1;
        await octokit.request("GET /repos/{owner}/{repo}/collaborators/{username}/permission", {
          owner: "octo",
          repo: "demo",
          username: "octocat",
        });
      }
    }),
  );
}

/** Microseconds of this process's CPU per call. */
async function cpuPerCall(octokit: Octokit): Promise<number> {
  const before = process.cpuUsage();
  await call(octokit, CALLS);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / CALLS;
}

export const run: Benchmark = async () => {
  const server = spawn(process.execPath, ["--import", "tsx", STAND_IN_ENTRY], {
    stdio: ["ignore", "pipe", "inherit"],
    env: process.env,
  });
  try {
    const [firstLine] = (await once(server.stdout, "data")) as [Buffer];
    const baseUrl = firstLine.toString("utf8").trim();
    const app = octokitWith(baseUrl, createGitHubFetch());
    const global = octokitWith(baseUrl, globalThis.fetch);
    const throttled = octokitWith(baseUrl, createGitHubFetch(), true);
    await call(app, WARMUP_CALLS);
    await call(global, WARMUP_CALLS);
    await call(throttled, WARMUP_CALLS);
    const ours: number[] = [];
    const theirs: number[] = [];
    const paced: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      // Alternating, so a slower stretch of a shared machine falls on all three.
      ours.push(await cpuPerCall(app));
      theirs.push(await cpuPerCall(global));
      paced.push(await cpuPerCall(throttled));
    }
    const throttledMedian = summarizeSamples(paced).median;
    const appMedian = summarizeSamples(ours).median;
    const globalMedian = summarizeSamples(theirs).median;
    const rows: BenchRow[] = [
      {
        benchmark: BENCHMARK,
        case: `CPU per Octokit call, the App's fetch (median of ${ROUNDS} rounds of ${CALLS}, ${IN_FLIGHT} in flight; rounds ${ours.map((value) => Math.round(value)).join(", ")} µs)`,
        value: roundTo(appMedian, 0),
        unit: "µs",
        baseline: roundTo(globalMedian, 0),
        baselineLabel: `global fetch (rounds ${theirs.map((value) => Math.round(value)).join(", ")} µs)`,
        ratio: roundTo(appMedian / globalMedian, 2),
      },
      {
        benchmark: BENCHMARK,
        case: `CPU per Octokit call, the App's fetch with Probot's throttle on, in process (rounds ${paced.map((value) => Math.round(value)).join(", ")} µs; the intake bench's triage runs with it off)`,
        value: roundTo(throttledMedian, 0),
        unit: "µs",
        baseline: roundTo(appMedian, 0),
        baselineLabel: "the App's fetch, throttle off",
        ratio: roundTo(throttledMedian / appMedian, 2),
      },
    ];
    return rows;
  } finally {
    server.kill();
  }
};
