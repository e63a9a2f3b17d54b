/**
 * How long `agentforge` takes to start and answer, as a process a person or a script starts:
 * `--help`, and `policy check -- ls` (which loads the bash parser). Each is timed from spawn to
 * exit, in turns with `node -e 0` (Node's own start, the floor) and with the same command run the
 * way the bin ran before it ran compiled JavaScript: `node --import tsx` on src/doors/cli/main.ts,
 * TypeScript compiled at start (tsx's cache in the temp folder is warm after the warm-up rounds,
 * as it is for a person who ran it before).
 *
 *   npm run bench -- --only cli-startup
 */
import { spawn, spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Benchmark, BenchRow } from "./bench-types.js";
import { comparePaired, measureInTurns } from "./support/measure-in-turns.js";
import { roundTo, summarizeSamples } from "./support/summarize-samples.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const BIN = path.join(ROOT, "bin", "agentforge.js");
const SOURCE_MAIN = pathToFileURL(path.join(ROOT, "src", "doors", "cli", "main.ts")).href;
const ROUNDS = 15;
const WARMUP_ROUNDS = 2;
const BUDGET_MS = 150_000;
const BENCHMARK = "cli-startup";

/** Only what the CLI needs: no NODE_OPTIONS from the bench's own process, no real keys. */
const CHILD_ENVIRONMENT: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  AGENTFORGE_CONFIG: "",
};

/** Spawns `node ARGS` and resolves when it exits; a non-zero exit fails the bench. */
function runNode(args: readonly string[]): () => Promise<void> {
  return () =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, args, {
        cwd: ROOT,
        env: CHILD_ENVIRONMENT,
        stdio: ["ignore", "ignore", "pipe"],
      });
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      child.on("error", reject);
      child.on("close", (code) =>
        code === 0
          ? resolve()
          : reject(new Error(`node ${args.join(" ")} exited ${String(code)}: ${stderr}`)),
      );
    });
}

/** The bin as it was: tsx compiles the sources while the process starts. */
function throughTsx(cliArgs: readonly string[]): string[] {
  const script = `const { main } = await import(${JSON.stringify(SOURCE_MAIN)}); process.exitCode = await main(process.argv.slice(1));`;
  return ["--import", "tsx", "--input-type=module", "-e", script, "--", ...cliArgs];
}

export const run: Benchmark = async () => {
  // Measure the sources as they are: the bench never times a stale build.
  const buildStarted = performance.now();
  const build = spawnSync(process.execPath, [path.join(ROOT, "scripts", "build-cli.mjs")], {
    cwd: ROOT,
    encoding: "utf8",
  });
  if (build.status !== 0) throw new Error(`npm run build failed: ${build.stdout}${build.stderr}`);
  const buildMs = performance.now() - buildStarted;

  const commands = [
    ["--help", ["--help"]],
    ["policy check -- ls", ["policy", "check", "--", "ls"]],
  ] as const;
  const cases = [
    ["node -e 0", runNode(["-e", "0"])] as const,
    ...commands.flatMap(([label, args]) => [
      [`${label}, compiled`, runNode([BIN, ...args])] as const,
      [`${label}, tsx`, runNode(throughTsx(args))] as const,
    ]),
  ];
  const samples = await measureInTurns(cases, {
    rounds: ROUNDS,
    warmupRounds: WARMUP_ROUNDS,
    budgetMs: BUDGET_MS,
  });
  const of = (name: string): readonly number[] => samples.get(name) ?? [];
  const floor = summarizeSamples(of("node -e 0"));
  const rows: BenchRow[] = [
    {
      benchmark: BENCHMARK,
      case: `node -e 0 (median, n=${floor.count})`,
      value: roundTo(floor.median),
      unit: "ms",
    },
  ];
  for (const [label] of commands) {
    const compiled = of(`${label}, compiled`);
    const viaTsx = of(`${label}, tsx`);
    const overNode = comparePaired(compiled, of("node -e 0"));
    const tsxOverNode = comparePaired(viaTsx, of("node -e 0"));
    const overTsx = comparePaired(compiled, viaTsx);
    rows.push(
      {
        benchmark: BENCHMARK,
        case: `agentforge ${label}, compiled (median, n=${overNode.subject.count})`,
        value: roundTo(overNode.subject.median),
        unit: "ms",
        baseline: roundTo(overNode.baseline.median),
        baselineLabel: "node -e 0",
        ratio: roundTo(overNode.ratioMedian),
      },
      {
        benchmark: BENCHMARK,
        case: `agentforge ${label}, through tsx as before (median, n=${tsxOverNode.subject.count})`,
        value: roundTo(tsxOverNode.subject.median),
        unit: "ms",
        baseline: roundTo(tsxOverNode.baseline.median),
        baselineLabel: "node -e 0",
        ratio: roundTo(tsxOverNode.ratioMedian),
      },
      {
        benchmark: BENCHMARK,
        case: `agentforge ${label}, compiled vs through tsx (paired median ratio, p25–p75 ${roundTo(overTsx.ratioP25)}–${roundTo(overTsx.ratioP75)})`,
        value: roundTo(overTsx.subject.median),
        unit: "ms",
        baseline: roundTo(overTsx.baseline.median),
        baselineLabel: "through tsx",
        ratio: roundTo(overTsx.ratioMedian),
        target: "faster than compiling at start",
        targetMet: overTsx.ratioMedian < 1,
      },
    );
  }
  rows.push({
    benchmark: BENCHMARK,
    case: "npm run build (esbuild, every file of src/, one run)",
    value: roundTo(buildMs),
    unit: "ms",
  });
  return rows;
};
