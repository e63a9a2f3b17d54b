import { spawn } from "node:child_process";
import { mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createSandboxRunner } from "../src/core/sandbox/create-sandbox-runner.js";
import { detectSandbox } from "../src/core/sandbox/detect-sandbox.js";
import type { CommandOutcome, CommandRunOptions } from "../src/core/tools/tool.js";
import { createRepositoryCache } from "../src/doors/github/workspace/create-repository-cache.js";
import type { Benchmark, BenchRow } from "./bench-types.js";
import { buildProjectRepository } from "./support/build-project-repository.js";
import { makeParentLayoutCheckout } from "./support/make-parent-layout-checkout.js";
import { comparePaired, measureInTurns, type RoundSamples } from "./support/measure-in-turns.js";
import { importParentModule, prepareParentSources, PARENT_COMMIT } from "./support/prepare-parent-sources.js";
import { roundTo, summarizeSamples } from "./support/summarize-samples.js";

const PROJECT_DIR = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const BENCHMARK = "layout-command";
const ROUNDS = 150;
const WARMUP_ROUNDS = 10;
const BUDGET_MS = 70_000;
const FIRST_COMMAND_ROUNDS = 10;
const TIMEOUT_MS = 10_000;
const REUSE_PROBES = 20;
const TMP_ROUNDS = 40;

/** What the parent's runner module exports, as far as the bench uses it. */
interface ParentRunnerModule {
  createSandboxRunner(options: { mode: "bwrap"; workspaceRoot: string; reuseSandbox?: boolean }): {
    run(command: string, options: { cwd: string; timeoutMs: number }): Promise<CommandOutcome>;
    close(): void;
  };
}

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

function expectOutcome(
  label: string,
  outcome: CommandOutcome,
  check: (outcome: CommandOutcome) => boolean,
): void {
  if (!check(outcome))
    throw new Error(
      `${label}: unexpected outcome ${JSON.stringify({ ...outcome, stdout: outcome.stdout.slice(0, 300) })}`,
    );
}

function skipped(reason: string): BenchRow[] {
  process.stderr.write(`${BENCHMARK}: skipped: ${reason}\n`);
  return [{ benchmark: BENCHMARK, case: `skipped: ${reason}`, value: Number.NaN, unit: "ms" }];
}

const range = (samples: readonly number[]): string => {
  const summary = summarizeSamples(samples);
  return `${roundTo(summary.min, 1)}–${roundTo(summary.max, 1)}`;
};

function rowsOfCommand(command: string, samples: RoundSamples, note: string): BenchRow[] {
  const get = (name: string): readonly number[] => samples.get(name) ?? [];
  const plain = get("plain spawn");
  const rounds = plain.length;
  const rows: BenchRow[] = [];
  for (const name of [...samples.keys()].filter((entry) => entry !== "plain spawn")) {
    const paired = comparePaired(get(name), plain);
    rows.push({
      benchmark: BENCHMARK,
      case: `\`${command}\`, ${name}: median (range ${range(get(name))} ms, n=${rounds}${note})`,
      value: roundTo(paired.subject.median),
      unit: "ms",
      baseline: roundTo(paired.baseline.median),
      baselineLabel: "plain spawn",
      ratio: roundTo(paired.ratioMedian),
      target: `added over plain spawn: ${roundTo(paired.differenceMedian)} ms (paired median)`,
    });
  }
  const comparisons: ReadonlyArray<readonly [string, string]> = [
    ["new layout, warm", "old layout, warm"],
    ["new layout, warm, read-only workspace", "old layout, warm"],
    ["new layout, fresh", "old layout, fresh"],
    ["new layout, fresh, read-only workspace", "old layout, fresh"],
  ];
  for (const [subject, baseline] of comparisons) {
    const paired = comparePaired(get(subject), get(baseline));
    rows.push({
      benchmark: BENCHMARK,
      case: `\`${command}\`: ${subject} against ${baseline} (paired by round, n=${rounds})`,
      value: roundTo(paired.subject.median),
      unit: "ms",
      baseline: roundTo(paired.baseline.median),
      baselineLabel: baseline,
      ratio: roundTo(paired.ratioMedian),
      target: `new − old ${roundTo(paired.differenceMedian)} ms (paired median); ratio p25–p75 ${roundTo(paired.ratioP25)}–${roundTo(paired.ratioP75)}`,
    });
  }
  return rows;
}

interface Layouts {
  readonly files: number;
  readonly headSha: string;
  readonly oldRoot: string;
  readonly newRoot: string;
  readonly oldOptions: { readonly cwd: string; readonly timeoutMs: number };
  readonly newOptions: CommandRunOptions;
  readonly readOnlyOptions: CommandRunOptions;
  readonly readOnlyPathCount: number;
}

/** One App-shaped checkout per layout under `parent`, from the same bare repository. */
async function makeLayouts(projectCommit: string, parent: string): Promise<Layouts> {
  const repository = await buildProjectRepository(PROJECT_DIR, projectCommit, parent);
  const cloneUrl = pathToFileURL(repository.bareDir).href;
  const cache = createRepositoryCache({ cacheDir: path.join(parent, "cache") });
  const checkout = await cache.checkout({
    cloneUrl,
    token: "unused",
    ref: "main",
    branch: "agentforge/issue-1",
  });
  const oldRoot = path.join(parent, "old", "workspace");
  await mkdir(path.dirname(oldRoot), { recursive: true });
  await makeParentLayoutCheckout({
    mirror: repository.bareDir,
    workspaceRoot: oldRoot,
    cloneUrl,
    sha: checkout.headSha,
    branch: "agentforge/issue-1",
  });
  const newOptions: CommandRunOptions = {
    cwd: checkout.workspaceRoot,
    timeoutMs: TIMEOUT_MS,
    readOnlyPaths: checkout.repository.sandboxReadOnlyPaths,
  };
  return {
    files: repository.files,
    headSha: checkout.headSha,
    oldRoot,
    newRoot: checkout.workspaceRoot,
    oldOptions: { cwd: oldRoot, timeoutMs: TIMEOUT_MS },
    newOptions,
    readOnlyOptions: { ...newOptions, readOnlyWorkspace: true },
    readOnlyPathCount: checkout.repository.sandboxReadOnlyPaths.length,
  };
}

type ParentRunner = ReturnType<ParentRunnerModule["createSandboxRunner"]>;
type MainRunner = ReturnType<typeof createSandboxRunner>;

/** Both layouts as the App uses them: git inside sees the checkout; only the work tree (or nothing) is writable. */
async function checkLayouts(layouts: Layouts, oldRunner: ParentRunner, newRunner: MainRunner): Promise<void> {
  const isHead = (outcome: CommandOutcome): boolean => outcome.stdout.trim() === layouts.headSha;
  expectOutcome("old layout", await oldRunner.run("git rev-parse HEAD", layouts.oldOptions), isHead);
  expectOutcome("new layout", await newRunner.run("git rev-parse HEAD", layouts.newOptions), isHead);
  expectOutcome(
    "read-only workspace",
    await newRunner.run("git rev-parse HEAD", layouts.readOnlyOptions),
    isHead,
  );
  const fails = (outcome: CommandOutcome): boolean => outcome.exitCode !== 0;
  expectOutcome("git directory", await newRunner.run("touch ../git/probe", layouts.newOptions), fails);
  expectOutcome("read-only workspace", await newRunner.run("touch probe", layouts.readOnlyOptions), fails);
  expectOutcome(
    "work tree",
    await newRunner.run("touch probe && rm probe", layouts.newOptions),
    (outcome) => outcome.exitCode === 0,
  );
}

/**
 * How many of `count` commands a warm runner served from a sandbox that was already running: the
 * command's shell is pid 2 of its namespace only in a sandbox started for it.
 */
async function countReusedSandboxes(
  runCommand: (command: string) => Promise<CommandOutcome>,
  count: number,
): Promise<number> {
  let reused = 0;
  await runCommand("true");
  for (let index = 0; index < count; index += 1) {
    const outcome = await runCommand("echo $$");
    if (outcome.stdout.trim() !== "2") reused += 1;
  }
  return reused;
}

/** Folders a warm sandbox empties after every command (as the sandbox sees them: /var/tmp is /tmp there). */
const SANDBOX_SCRATCH = ["/tmp", "/var/tmp", "/dev/shm", "/home/sandbox"];

/**
 * Where the checkouts live decides whether the warm sandbox survives a command: after every
 * command it empties its scratch folders and spares only the way down to the workspace. The App's
 * default data folder (~/.local/share/agentforge) is outside them, so the main figures use a
 * folder under the home folder too; eval's temp folders, a data folder under /tmp and an Action's
 * RUNNER_TEMP fallback are inside, which the /tmp rows show.
 */
async function chooseOutsideScratch(): Promise<string> {
  for (const candidate of [path.join(os.homedir(), ".cache"), path.join(PROJECT_DIR, "tmp")]) {
    await mkdir(candidate, { recursive: true });
    const real = await realpath(candidate);
    const isScratch = SANDBOX_SCRATCH.some((folder) => real === folder || real.startsWith(`${folder}/`));
    if (!isScratch) return real;
  }
  throw new Error("no folder outside the sandbox's scratch folders for the checkouts");
}

/**
 * The sandbox's cost per network-off command over an App-shaped checkout, main's layout (task
 * folder: `tree/` + `git/`, the git directory, the mirror's objects and the `.git` file mounted
 * read-only) against the parent commit's (`.git` inside the work tree, its config and hooks
 * re-bound read-only, `.git` pinned), each with its own runner code, in the same run.
 */
export const run: Benchmark = async () => {
  const detection = await detectSandbox();
  if (!detection.available) return skipped(`bwrap unavailable: ${detection.problem ?? ""}`);
  const parent = await prepareParentSources(PROJECT_DIR, { needsSimpleGit: false });
  if (!parent.available) return skipped(parent.reason);
  const Parent = await importParentModule<ParentRunnerModule>(
    parent,
    "src/core/sandbox/create-sandbox-runner.ts",
  );

  const outside = await mkdtemp(path.join(await chooseOutsideScratch(), "agentforge-bench-layout-command-"));
  const inside = await mkdtemp(path.join(os.tmpdir(), "agentforge-bench-layout-command-"));
  const closers: Array<() => void> = [];
  try {
    const layouts = await makeLayouts(parent.commit, outside);
    const { oldRoot, newRoot, oldOptions, newOptions, readOnlyOptions } = layouts;
    const oldWarm = Parent.createSandboxRunner({ mode: "bwrap", workspaceRoot: oldRoot });
    const oldFresh = Parent.createSandboxRunner({
      mode: "bwrap",
      workspaceRoot: oldRoot,
      reuseSandbox: false,
    });
    const newWarm = createSandboxRunner({ mode: "bwrap", workspaceRoot: newRoot });
    const newFresh = createSandboxRunner({ mode: "bwrap", workspaceRoot: newRoot, reuseSandbox: false });
    closers.push(oldWarm.close, oldFresh.close, newWarm.close, newFresh.close);
    await checkLayouts(layouts, oldWarm, newWarm);

    const note = `, ${layouts.files}-file checkout in ${path.dirname(outside)}, process limit: ${detection.processLimit ?? "?"}`;
    const rows: BenchRow[] = [
      {
        benchmark: BENCHMARK,
        case: `old layout from ${PARENT_COMMIT} (${parent.commit.slice(0, 12)}), imported beside main's; checkouts of ${layouts.files} files in ${path.dirname(outside)}`,
        value: layouts.readOnlyPathCount,
        unit: "read-only git paths (new)",
      },
    ];
    for (const command of ["true", "git rev-parse HEAD"]) {
      const samples = await measureInTurns(
        [
          ["plain spawn", () => plainSpawn(command, oldRoot)],
          ["old layout, warm", () => oldWarm.run(command, oldOptions)],
          ["new layout, warm", () => newWarm.run(command, newOptions)],
          ["new layout, warm, read-only workspace", () => newWarm.run(command, readOnlyOptions)],
          ["old layout, fresh", () => oldFresh.run(command, oldOptions)],
          ["new layout, fresh", () => newFresh.run(command, newOptions)],
          ["new layout, fresh, read-only workspace", () => newFresh.run(command, readOnlyOptions)],
        ],
        { rounds: ROUNDS, warmupRounds: WARMUP_ROUNDS, budgetMs: BUDGET_MS },
      );
      rows.push(...rowsOfCommand(command, samples, note));
    }
    for (const [name, runCommand] of [
      ["old layout", (command: string) => oldWarm.run(command, oldOptions)],
      ["new layout", (command: string) => newWarm.run(command, newOptions)],
      ["new layout, read-only workspace", (command: string) => newWarm.run(command, readOnlyOptions)],
    ] as const) {
      rows.push({
        benchmark: BENCHMARK,
        case: `checkouts in ${path.dirname(outside)}: ${name}, commands served by a warm sandbox already running (of ${REUSE_PROBES})`,
        value: await countReusedSandboxes(runCommand, REUSE_PROBES),
        unit: "commands",
      });
    }

    // A runner's first command also starts its warm sandbox: once per workspace and access.
    const firsts = await measureInTurns(
      [
        [
          "old layout",
          async () => {
            const runner = Parent.createSandboxRunner({ mode: "bwrap", workspaceRoot: oldRoot });
            await runner.run("true", oldOptions);
            runner.close();
          },
        ],
        [
          "new layout",
          async () => {
            const runner = createSandboxRunner({ mode: "bwrap", workspaceRoot: newRoot });
            await runner.run("true", newOptions);
            runner.close();
          },
        ],
        [
          "new layout, read-only workspace",
          async () => {
            const runner = createSandboxRunner({ mode: "bwrap", workspaceRoot: newRoot });
            await runner.run("true", readOnlyOptions);
            runner.close();
          },
        ],
      ],
      { rounds: FIRST_COMMAND_ROUNDS, warmupRounds: 1 },
    );
    const oldFirsts = firsts.get("old layout") ?? [];
    for (const name of ["old layout", "new layout", "new layout, read-only workspace"]) {
      const paired = comparePaired(firsts.get(name) ?? [], oldFirsts);
      rows.push({
        benchmark: BENCHMARK,
        case: `first command of a runner (starts its warm sandbox), ${name}: median (range ${range(firsts.get(name) ?? [])} ms, n=${oldFirsts.length})`,
        value: roundTo(paired.subject.median),
        unit: "ms",
        ...(name === "old layout"
          ? {}
          : {
              baseline: roundTo(paired.baseline.median),
              baselineLabel: "old layout",
              ratio: roundTo(paired.ratioMedian),
            }),
      });
    }
    for (const close of closers.splice(0)) close();

    // The same layouts under /tmp, which the warm sandbox empties after every command.
    const inTmp = await makeLayouts(parent.commit, inside);
    const oldInTmp = Parent.createSandboxRunner({ mode: "bwrap", workspaceRoot: inTmp.oldRoot });
    const newInTmp = createSandboxRunner({ mode: "bwrap", workspaceRoot: inTmp.newRoot });
    closers.push(oldInTmp.close, newInTmp.close);
    await checkLayouts(inTmp, oldInTmp, newInTmp);
    const tmpSamples = await measureInTurns(
      [
        ["plain spawn", () => plainSpawn("true", inTmp.oldRoot)],
        ["old layout, warm", () => oldInTmp.run("true", inTmp.oldOptions)],
        ["new layout, warm", () => newInTmp.run("true", inTmp.newOptions)],
      ],
      { rounds: TMP_ROUNDS, warmupRounds: 3, budgetMs: BUDGET_MS / 2 },
    );
    const tmpPaired = comparePaired(
      tmpSamples.get("new layout, warm") ?? [],
      tmpSamples.get("old layout, warm") ?? [],
    );
    const tmpPlain = comparePaired(
      tmpSamples.get("new layout, warm") ?? [],
      tmpSamples.get("plain spawn") ?? [],
    );
    const tmpOldPlain = comparePaired(
      tmpSamples.get("old layout, warm") ?? [],
      tmpSamples.get("plain spawn") ?? [],
    );
    rows.push({
      benchmark: BENCHMARK,
      case: `\`true\`, checkouts in ${os.tmpdir()}: new layout, warm, against old layout, warm (paired, n=${tmpPaired.subject.count}; range new ${range(tmpSamples.get("new layout, warm") ?? [])} ms, old ${range(tmpSamples.get("old layout, warm") ?? [])} ms)`,
      value: roundTo(tmpPaired.subject.median),
      unit: "ms",
      baseline: roundTo(tmpPaired.baseline.median),
      baselineLabel: "old layout, warm",
      ratio: roundTo(tmpPaired.ratioMedian),
      target: `added over plain spawn: new ${roundTo(tmpPlain.differenceMedian)} ms, old ${roundTo(tmpOldPlain.differenceMedian)} ms (paired medians)`,
    });
    for (const [name, runCommand] of [
      ["old layout", (command: string) => oldInTmp.run(command, inTmp.oldOptions)],
      ["new layout", (command: string) => newInTmp.run(command, inTmp.newOptions)],
    ] as const) {
      rows.push({
        benchmark: BENCHMARK,
        case: `checkouts in ${os.tmpdir()}: ${name}, commands served by a warm sandbox already running (of ${REUSE_PROBES})`,
        value: await countReusedSandboxes(runCommand, REUSE_PROBES),
        unit: "commands",
      });
    }
    return rows;
  } finally {
    for (const close of closers) close();
    await rm(outside, { recursive: true, force: true });
    await rm(inside, { recursive: true, force: true });
  }
};

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const row of await run()) console.log(JSON.stringify(row));
}
