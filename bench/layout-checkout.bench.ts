import { execFile } from "node:child_process";
import { lstat, mkdtemp, readdir, rm } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { createRepositoryCache } from "../src/doors/github/workspace/create-repository-cache.js";
import type { Benchmark, BenchRow } from "./bench-types.js";
import { buildLargeRepository } from "./support/build-large-repository.js";
import { buildProjectRepository } from "./support/build-project-repository.js";
import { chooseScratchParent } from "./support/choose-scratch-parent.js";
import { comparePaired } from "./support/measure-in-turns.js";
import { importParentModule, prepareParentSources } from "./support/prepare-parent-sources.js";
import { roundTo, summarizeSamples } from "./support/summarize-samples.js";

const execFileAsync = promisify(execFile);
const PROJECT_DIR = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const BENCHMARK = "layout-checkout";

interface CheckoutRequest {
  readonly cloneUrl: string;
  readonly token: string;
  readonly ref: string;
  readonly branch: string;
}

/** What both generations of `createRepositoryCache` return, as far as the bench reads it. */
interface AnyCheckout {
  readonly workspaceRoot: string;
  readonly cacheState: "cold" | "warm";
  cleanup(): Promise<void>;
}

interface ParentCacheModule {
  createRepositoryCache(options: { cacheDir: string }): {
    checkout(options: CheckoutRequest): Promise<AnyCheckout>;
  };
}

type Design = "new" | "old";

interface DiskUsage {
  /** Allocated bytes (st_blocks × 512), what the checkout made the file system write and keep. */
  readonly allocated: number;
  readonly files: number;
}

interface Disk {
  /** The task folder of the warm checkout: work tree and git metadata. */
  readonly taskFolder: DiskUsage;
  /** The git metadata alone: `git/` beside the work tree, or `.git` inside it. */
  readonly gitMetadata: DiskUsage;
  readonly mirror: DiskUsage;
}

interface Round {
  readonly coldMs: number;
  readonly warmMs: number;
  /** Looked up in the first round only: the same every round, and a walk of every file. */
  readonly disk?: Disk;
}

async function diskUsage(root: string): Promise<DiskUsage> {
  let allocated = (await lstat(root)).blocks * 512;
  let files = 0;
  for (const entry of await readdir(root, { withFileTypes: true, recursive: true })) {
    const stats = await lstat(path.join(entry.parentPath, entry.name));
    allocated += stats.blocks * 512;
    if (entry.isFile()) files += 1;
  }
  return { allocated, files };
}

function skipped(reason: string): BenchRow[] {
  process.stderr.write(`${BENCHMARK}: skipped: ${reason}\n`);
  return [{ benchmark: BENCHMARK, case: `skipped: ${reason}`, value: Number.NaN, unit: "ms" }];
}

async function timed<T>(action: () => Promise<T>, shouldFlush: boolean): Promise<{ value: T; ms: number }> {
  if (shouldFlush) await execFileAsync("sync");
  const started = performance.now();
  const value = await action();
  return { value, ms: performance.now() - started };
}

/**
 * One design's cold checkout (first task: clones the mirror, makes the task folder) and warm one
 * (second task: fetches, makes another), each in a fresh cache, with what they leave on disk.
 */
async function measureDesign(
  design: Design,
  createCache: (cacheDir: string) => { checkout(options: CheckoutRequest): Promise<AnyCheckout> },
  request: CheckoutRequest,
  scratch: string,
  options: { readonly shouldFlush: boolean; readonly shouldMeasureDisk: boolean },
): Promise<Round> {
  const { shouldFlush } = options;
  const cacheDir = await mkdtemp(path.join(scratch, `${design}-cache-`));
  try {
    const cache = createCache(cacheDir);
    const cold = await timed(() => cache.checkout(request), shouldFlush);
    if (cold.value.cacheState !== "cold")
      throw new Error(`${design}: the first checkout did not clone the mirror`);
    await cold.value.cleanup();
    const warm = await timed(() => cache.checkout(request), shouldFlush);
    if (warm.value.cacheState !== "warm") throw new Error(`${design}: the second checkout cloned again`);
    const workTree = warm.value.workspaceRoot;
    // New: <task>/tree and <task>/git; old: the work tree is the task folder, `.git` inside it.
    const taskFolder = design === "new" ? path.dirname(workTree) : workTree;
    const gitMetadata = design === "new" ? path.join(taskFolder, "git") : path.join(workTree, ".git");
    const round: Round = {
      coldMs: cold.ms,
      warmMs: warm.ms,
      ...(options.shouldMeasureDisk
        ? {
            disk: {
              taskFolder: await diskUsage(taskFolder),
              gitMetadata: await diskUsage(gitMetadata),
              mirror: await diskUsage(path.join(cacheDir, "mirrors")),
            },
          }
        : {}),
    };
    await warm.value.cleanup();
    return round;
  } finally {
    await rm(cacheDir, { recursive: true, force: true });
  }
}

const megabytes = (bytes: number): number => roundTo(bytes / 1_000_000, 1);

function timeRow(label: string, newTimes: readonly number[], oldTimes: readonly number[]): BenchRow {
  const paired = comparePaired(newTimes, oldTimes);
  const range = (samples: readonly number[]): string => {
    const summary = summarizeSamples(samples);
    return `${roundTo(summary.min, 0)}–${roundTo(summary.max, 0)}`;
  };
  return {
    benchmark: BENCHMARK,
    case: `${label}: new against old (median; range new ${range(newTimes)} ms, old ${range(oldTimes)} ms; paired, n=${newTimes.length})`,
    value: roundTo(paired.subject.median, 0),
    unit: "ms",
    baseline: roundTo(paired.baseline.median, 0),
    baselineLabel: "old layout",
    ratio: roundTo(paired.ratioMedian),
    target: `new − old ${roundTo(paired.differenceMedian, 0)} ms (paired median); ratio p25–p75 ${roundTo(paired.ratioP25)}–${roundTo(paired.ratioP75)}`,
  };
}

function diskRow(label: string, newUsage: DiskUsage, oldUsage: DiskUsage): BenchRow {
  return {
    benchmark: BENCHMARK,
    case: `${label} (new ${newUsage.files} files, old ${oldUsage.files} files)`,
    value: megabytes(newUsage.allocated),
    unit: "MB",
    baseline: megabytes(oldUsage.allocated),
    baselineLabel: "old layout",
    ratio: roundTo(newUsage.allocated / oldUsage.allocated, 3),
    target: `new − old ${megabytes(newUsage.allocated - oldUsage.allocated)} MB`,
  };
}

/**
 * The repository cache's checkout, main's task folder (`git clone --shared --no-checkout
 * --separate-git-dir` from the mirror) against the parent commit's (`git clone --local
 * --no-hardlinks`, `.git` inside; simple-git), cold and warm, in turns, on the large repository
 * of the checkout bench over file://, with the disk each leaves behind.
 */
interface RepositoryPlan {
  readonly label: string;
  readonly bareDir: string;
  readonly description: string;
  readonly rounds: number;
  readonly budgetMs: number;
}

async function measureRepository(
  plan: RepositoryPlan,
  designs: Record<Design, (cacheDir: string) => { checkout(options: CheckoutRequest): Promise<AnyCheckout> }>,
  scratch: string,
  shouldFlush: boolean,
): Promise<BenchRow[]> {
  const request: CheckoutRequest = {
    cloneUrl: pathToFileURL(plan.bareDir).href,
    token: "ghs_benchCheckoutToken0123456789abcdefABCD",
    ref: "main",
    branch: "agentforge/issue-1",
  };
  const rounds: Record<Design, Round[]> = { new: [], old: [] };
  const started = performance.now();
  let longestRound = 0;
  for (let index = 0; index < plan.rounds; index += 1) {
    if (index > 0 && performance.now() - started + longestRound > plan.budgetMs) break;
    const roundStarted = performance.now();
    // A B, then B A: whichever goes second in a round does not always meet the other's write-back.
    const order: Design[] = index % 2 === 0 ? ["new", "old"] : ["old", "new"];
    for (const design of order)
      rounds[design].push(
        await measureDesign(design, designs[design], request, scratch, {
          shouldFlush,
          shouldMeasureDisk: index === 0,
        }),
      );
    const last = (design: Design): Round => rounds[design][rounds[design].length - 1]!;
    const seconds = (ms: number): string => (ms / 1000).toFixed(2);
    process.stdout.write(
      `${plan.label}, round ${index + 1}: new cold ${seconds(last("new").coldMs)} s, warm ${seconds(last("new").warmMs)} s; old cold ${seconds(last("old").coldMs)} s, warm ${seconds(last("old").warmMs)} s\n`,
    );
    longestRound = Math.max(longestRound, performance.now() - roundStarted);
  }
  const pick = (design: Design, field: "coldMs" | "warmMs"): number[] =>
    rounds[design].map((round) => round[field]);
  const first = (design: Design): Disk => rounds[design][0]!.disk!;
  const written = (design: Design): number =>
    first(design).mirror.allocated + first(design).taskFolder.allocated;
  return [
    {
      benchmark: BENCHMARK,
      case: `${plan.label}: ${plan.description}`,
      value: rounds.new.length,
      unit: "rounds",
    },
    timeRow(
      `${plan.label}: cold checkout (clones the mirror, then makes the task folder)`,
      pick("new", "coldMs"),
      pick("old", "coldMs"),
    ),
    timeRow(
      `${plan.label}: warm checkout (second task: fetch, then the task folder)`,
      pick("new", "warmMs"),
      pick("old", "warmMs"),
    ),
    diskRow(
      `${plan.label}: disk used by one task folder (work tree and git metadata)`,
      first("new").taskFolder,
      first("old").taskFolder,
    ),
    diskRow(
      `${plan.label}: disk used by its git metadata (new: git/ beside the tree; old: .git inside)`,
      first("new").gitMetadata,
      first("old").gitMetadata,
    ),
    diskRow(
      `${plan.label}: disk used by the mirror (once per repository, shared by tasks)`,
      first("new").mirror,
      first("old").mirror,
    ),
    {
      benchmark: BENCHMARK,
      case: `${plan.label}: written by a cold checkout (mirror + task folder), new against old`,
      value: megabytes(written("new")),
      unit: "MB",
      baseline: megabytes(written("old")),
      baselineLabel: "old layout",
      ratio: roundTo(written("new") / written("old"), 3),
    },
  ];
}

/**
 * The repository cache's checkout, main's task folder (`git clone --shared --no-checkout
 * --separate-git-dir` from the mirror) against the parent commit's (`git clone --local
 * --no-hardlinks`, `.git` inside; simple-git), cold and warm, in turns, over file://, with the
 * disk each leaves behind: on this project's files and on the large repository of the checkout bench.
 */
export const run: Benchmark = async () => {
  const parent = await prepareParentSources(PROJECT_DIR, { needsSimpleGit: true });
  if (!parent.available) return skipped(parent.reason);
  if (parent.simpleGitProblem !== undefined) return skipped(parent.simpleGitProblem);
  const Parent = await importParentModule<ParentCacheModule>(
    parent,
    "src/doors/github/workspace/create-repository-cache.ts",
  );
  const large = await buildLargeRepository(PROJECT_DIR);
  const scratchParent = await chooseScratchParent();
  const scratch = await mkdtemp(path.join(scratchParent.directory, "agentforge-bench-layout-checkout-"));
  const designs: Record<
    Design,
    (cacheDir: string) => { checkout(options: CheckoutRequest): Promise<AnyCheckout> }
  > = {
    new: (cacheDir) => createRepositoryCache({ cacheDir }),
    old: (cacheDir) => Parent.createRepositoryCache({ cacheDir }),
  };
  const shouldFlush = !scratchParent.isMemory;
  try {
    const project = await buildProjectRepository(PROJECT_DIR, parent.commit, scratch);
    const megabytesOf = (bytes: number): string => `${megabytes(bytes)} MB`;
    return [
      {
        benchmark: BENCHMARK,
        case: `old layout from ${parent.commit.slice(0, 12)} with simple-git ${parent.simpleGitVersion ?? "?"}; over file://; written to ${scratchParent.directory}${shouldFlush ? " (disk, flushed before each step)" : " (memory)"}`,
        value: 2,
        unit: "repositories",
      },
      ...(await measureRepository(
        {
          label: "project repository",
          bareDir: project.bareDir,
          description: `this project's ${project.files} files at ${parent.commit.slice(0, 12)}, one commit`,
          rounds: 20,
          budgetMs: 50_000,
        },
        designs,
        scratch,
        shouldFlush,
      )),
      ...(await measureRepository(
        {
          label: "large repository",
          bareDir: large.bareDir,
          description: `${large.files} files, ${megabytesOf(large.sourceBytes)}, ${large.commits} commits`,
          rounds: 8,
          budgetMs: 150_000,
        },
        designs,
        scratch,
        shouldFlush,
      )),
    ];
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
};

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const row of await run()) console.log(JSON.stringify(row));
}
