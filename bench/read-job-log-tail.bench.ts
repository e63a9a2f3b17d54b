/**
 * What reading a failing job's log costs a CI fix: `readJobLogTail` (follows the logs endpoint's
 * redirect, streams the download and holds only its tail) against the plain way (Octokit parses
 * the whole body as text, then the tail is cut), on the GitHub stand-in with a 20 MB log, in turns.
 * Also the most the streamed reader holds at once, which is fixed by construction.
 *
 *   npx tsx bench/run-benchmarks.ts --only read-job-log-tail
 */
import { Octokit } from "@octokit/rest";
import type { Benchmark, BenchRow } from "./bench-types.js";
import { measureInTurns } from "./support/measure-in-turns.js";
import { roundTo, summarizeSamples } from "./support/summarize-samples.js";
import { CHECK_LIMITS, readJobLogTail } from "../src/doors/github/jobs/read-failing-checks.js";
import { startGitHubStandIn } from "../test/support/github-stand-in/start-github-stand-in.js";

const BENCHMARK = "read-job-log-tail";
const LOG_LINES = 200_000;
const ROUNDS = 8;

export const run: Benchmark = async () => {
  const github = await startGitHubStandIn({
    repositories: [{ owner: "octo", name: "demo", files: { "a.txt": "a\n" } }],
  });
  try {
    const headSha = github.branchSha("octo", "demo", "main")!;
    const line = "2026-12-02T06:00:00.0000000Z " + "x".repeat(70);
    const log = Array.from({ length: LOG_LINES }, (_, index) => `${line} ${index}`).join("\n");
    const jobId = github.addCheckRun("octo", "demo", {
      headSha,
      name: "test",
      conclusion: "failure",
      appSlug: "github-actions",
      output: {},
      annotations: [],
      log,
    });
    const octokit = new Octokit({ baseUrl: github.apiUrl, auth: github.token });
    const target = { owner: "octo", repo: "demo", ref: headSha };
    const samples = await measureInTurns(
      [
        ["streamed tail", () => readJobLogTail(octokit, target, jobId)],
        [
          "whole body",
          async () => {
            const response = await octokit.request("GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs", {
              owner: "octo",
              repo: "demo",
              job_id: jobId,
            });
            return String(response.data).split("\n").slice(-CHECK_LIMITS.logLines).join("\n");
          },
        ],
      ],
      { rounds: ROUNDS, warmupRounds: 1 },
    );
    const streamed = summarizeSamples(samples.get("streamed tail")!);
    const whole = summarizeSamples(samples.get("whole body")!);
    const megabytes = roundTo(Buffer.byteLength(log) / 1e6, 1);
    const rows: BenchRow[] = [
      {
        benchmark: BENCHMARK,
        case: `${megabytes} MB log, median (${streamed.count} rounds)`,
        value: roundTo(streamed.median, 1),
        unit: "ms",
        baseline: roundTo(whole.median, 1),
        baselineLabel: "whole body parsed",
        ratio: roundTo(streamed.median / whole.median, 2),
      },
      {
        benchmark: BENCHMARK,
        case: "most bytes held while streaming, besides the chunk being read",
        value: CHECK_LIMITS.logBytes * 8,
        unit: "bytes",
        baseline: Buffer.byteLength(log),
        baselineLabel: "whole body",
        ratio: roundTo((CHECK_LIMITS.logBytes * 8) / Buffer.byteLength(log), 4),
      },
    ];
    return rows;
  } finally {
    await github.close();
  }
};
