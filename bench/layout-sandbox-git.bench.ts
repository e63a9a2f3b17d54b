import { execFile } from "node:child_process";
import { appendFile, mkdir, mkdtemp, realpath, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { runHostGit } from "../src/core/git/run-host-git.js";
import { createSandboxRunner } from "../src/core/sandbox/create-sandbox-runner.js";
import { detectSandbox } from "../src/core/sandbox/detect-sandbox.js";
import type { CommandOutcome, CommandRunOptions } from "../src/core/tools/tool.js";
import {
  createRepositoryCache,
  type Checkout,
} from "../src/doors/github/workspace/create-repository-cache.js";
import type { Benchmark, BenchRow } from "./bench-types.js";
import { buildLargeRepository } from "./support/build-large-repository.js";
import { buildProjectRepository } from "./support/build-project-repository.js";
import { makeParentLayoutCheckout } from "./support/make-parent-layout-checkout.js";
import { comparePaired, measureInTurns } from "./support/measure-in-turns.js";
import { importParentModule, prepareParentSources } from "./support/prepare-parent-sources.js";
import { roundTo, summarizeSamples } from "./support/summarize-samples.js";

const execFileAsync = promisify(execFile);
const PROJECT_DIR = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const BENCHMARK = "layout-sandbox-git";
const TIMEOUT_MS = 120_000;
const BRANCH = "agentforge/issue-1";
/** The sandbox sees the index through a read-only mount; this setting ignores the uid it cannot match. */
const MINIMAL_STAT = "-c core.checkStat=minimal";

interface ParentRunnerModule {
  createSandboxRunner(options: { mode: "bwrap"; workspaceRoot: string }): {
    run(command: string, options: { cwd: string; timeoutMs: number }): Promise<CommandOutcome>;
    close(): void;
  };
}

interface RepositoryPlan {
  readonly label: string;
  readonly bareDir: string;
  readonly files: number;
  readonly rounds: number;
  readonly budgetMs: number;
}

function skipped(reason: string): BenchRow[] {
  process.stderr.write(`${BENCHMARK}: skipped: ${reason}\n`);
  return [{ benchmark: BENCHMARK, case: `skipped: ${reason}`, value: Number.NaN, unit: "ms" }];
}

const SANDBOX_SCRATCH = ["/tmp", "/var/tmp", "/dev/shm", "/home/sandbox"];

/** Outside the folders a warm sandbox empties after each command, as the App's default data folder is. */
async function chooseOutsideScratch(): Promise<string> {
  for (const candidate of [path.join(os.homedir(), ".cache"), path.join(PROJECT_DIR, "tmp")]) {
    await mkdir(candidate, { recursive: true });
    const real = await realpath(candidate);
    if (!SANDBOX_SCRATCH.some((folder) => real === folder || real.startsWith(`${folder}/`))) return real;
  }
  throw new Error("no folder outside the sandbox's scratch folders for the checkouts");
}

/** Index entries git must read again on every status: modified in the second the index was written, or later. */
async function countRacyEntries(gitDirectory: string): Promise<number> {
  const indexSeconds = Math.floor((await stat(path.join(gitDirectory, "index"))).mtimeMs / 1000);
  const { stdout } = await execFileAsync("git", ["--git-dir", gitDirectory, "ls-files", "--debug"], {
    maxBuffer: 256 * 1024 * 1024,
  });
  let racy = 0;
  for (const match of stdout.matchAll(/^ {2}mtime: (\d+):/gm))
    if (Number(match[1]) >= indexSeconds) racy += 1;
  return racy;
}

/**
 * What the proposed fix does on the host after a checkout: once the clock has left the second the
 * checkout wrote its index in, write the index again, so no entry is racily clean any more.
 */
async function rewriteIndexLater(checkout: Checkout): Promise<number> {
  const indexMs = (await stat(path.join(checkout.repository.gitDirectory, "index"))).mtimeMs;
  const wait = Math.ceil(indexMs / 1000) * 1000 + 50 - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  const started = performance.now();
  await runHostGit(checkout.repository, ["update-index", "-q", "--refresh", "--force-write-index"]);
  return performance.now() - started;
}

function range(samples: readonly number[]): string {
  const summary = summarizeSamples(samples);
  return `${roundTo(summary.min, 0)}–${roundTo(summary.max, 0)}`;
}

async function measureRepository(
  plan: RepositoryPlan,
  scratch: string,
  Parent: ParentRunnerModule,
): Promise<BenchRow[]> {
  const folder = await mkdtemp(path.join(scratch, `${plan.label}-`));
  const cloneUrl = pathToFileURL(plan.bareDir).href;
  const cache = createRepositoryCache({ cacheDir: path.join(folder, "cache") });
  const checkout = { cloneUrl, token: "unused", ref: "main", branch: BRANCH };
  const asCheckedOut = await cache.checkout(checkout);
  const withFix = await cache.checkout(checkout);
  const oldRoot = path.join(folder, "old", "workspace");
  await mkdir(path.dirname(oldRoot), { recursive: true });
  await makeParentLayoutCheckout({
    mirror: plan.bareDir,
    workspaceRoot: oldRoot,
    cloneUrl,
    sha: asCheckedOut.headSha,
    branch: BRANCH,
  });
  const racyAfterCheckout = await countRacyEntries(asCheckedOut.repository.gitDirectory);
  const rewriteMs = await rewriteIndexLater(withFix);
  const racyAfterRewrite = await countRacyEntries(withFix.repository.gitDirectory);
  // The agent has edited one tracked file, as the file tools do: on the host, in the work tree.
  const { stdout: firstFile } = await execFileAsync("git", ["-C", oldRoot, "ls-files", "-z"], {
    maxBuffer: 256 * 1024 * 1024,
  });
  const edited = firstFile.split("\0")[0] ?? "";
  for (const root of [oldRoot, asCheckedOut.workspaceRoot, withFix.workspaceRoot])
    await appendFile(path.join(root, edited), "\n// edited by the bench\n");
  // 160 MB of new files on a disk shared with others: flush them before timing anything.
  await execFileAsync("sync");

  const oldRunner = Parent.createSandboxRunner({ mode: "bwrap", workspaceRoot: oldRoot });
  const newRunner = createSandboxRunner({ mode: "bwrap", workspaceRoot: asCheckedOut.workspaceRoot });
  const fixRunner = createSandboxRunner({ mode: "bwrap", workspaceRoot: withFix.workspaceRoot });
  const oldOptions = { cwd: oldRoot, timeoutMs: TIMEOUT_MS };
  const optionsOf = (checkedOut: Checkout): CommandRunOptions => ({
    cwd: checkedOut.workspaceRoot,
    timeoutMs: TIMEOUT_MS,
    readOnlyPaths: checkedOut.repository.sandboxReadOnlyPaths,
  });
  const rows: BenchRow[] = [];
  try {
    const expectEdited = (label: string, outcome: CommandOutcome): void => {
      if (outcome.exitCode !== 0 || !outcome.stdout.includes(edited))
        throw new Error(`${label}: git status in the sandbox said ${JSON.stringify(outcome)}`);
    };
    // The first status in the old layout also writes the index (the sandbox could): paid once.
    const firstOld = await oldRunner.run("git status --porcelain", oldOptions);
    expectEdited("old layout", firstOld);
    expectEdited("new layout", await newRunner.run("git status --porcelain", optionsOf(asCheckedOut)));
    expectEdited(
      "new layout, fix",
      await fixRunner.run(`git ${MINIMAL_STAT} status --porcelain`, optionsOf(withFix)),
    );
    rows.push({
      benchmark: BENCHMARK,
      case: `${plan.label} (${plan.files} files): first \`git status\` in the old layout, which rewrites the index from inside the sandbox`,
      value: roundTo(firstOld.durationMs, 0),
      unit: "ms",
    });
    rows.push({
      benchmark: BENCHMARK,
      case: `${plan.label}: index entries racily clean after the checkout (mtime in the index's second or later), before / after the host rewrote the index a second later`,
      value: racyAfterCheckout,
      unit: "entries",
      baseline: racyAfterRewrite,
      baselineLabel: "after the rewrite",
    });
    rows.push({
      benchmark: BENCHMARK,
      case: `${plan.label}: the host's index rewrite of the proposed fix (\`update-index --refresh --force-write-index\`, once per task, after the wait)`,
      value: roundTo(rewriteMs, 0),
      unit: "ms",
    });

    for (const command of ["status --porcelain", "diff"]) {
      const samples = await measureInTurns(
        [
          ["old layout", () => oldRunner.run(`git ${command}`, oldOptions)],
          ["new layout", () => newRunner.run(`git ${command}`, optionsOf(asCheckedOut))],
          [
            "new layout, core.checkStat=minimal",
            () => newRunner.run(`git ${MINIMAL_STAT} ${command}`, optionsOf(asCheckedOut)),
          ],
          [
            "new layout, core.checkStat=minimal and the index rewritten a second after checkout (proposed fix)",
            () => fixRunner.run(`git ${MINIMAL_STAT} ${command}`, optionsOf(withFix)),
          ],
        ],
        { rounds: plan.rounds, warmupRounds: 1, budgetMs: plan.budgetMs / 2 },
      );
      const old = samples.get("old layout") ?? [];
      for (const [name, values] of samples) {
        const paired = comparePaired(values, old);
        rows.push({
          benchmark: BENCHMARK,
          case: `${plan.label}: \`git ${command}\` in the warm sandbox, ${name}: median (range ${range(values)} ms, n=${values.length})`,
          value: roundTo(paired.subject.median, 1),
          unit: "ms",
          ...(name === "old layout"
            ? {}
            : {
                baseline: roundTo(paired.baseline.median, 1),
                baselineLabel: "old layout",
                ratio: roundTo(paired.ratioMedian),
                target: `new − old ${roundTo(paired.differenceMedian, 0)} ms (paired median)`,
              }),
        });
      }
    }

    // The host's next git after the agent's git: the old layout's index now holds the sandbox's
    // uid, so the host's first status (as `git add` at commit time) reads every file again.
    const hostStatus = async (gitDirectory: string, workTree: string): Promise<number> => {
      const started = performance.now();
      await execFileAsync(
        "git",
        ["--git-dir", gitDirectory, "--work-tree", workTree, "status", "--porcelain"],
        {
          maxBuffer: 64 * 1024 * 1024,
        },
      );
      return performance.now() - started;
    };
    const hostTimes = { old: [] as number[], new: [] as number[] };
    const hostRounds = Math.max(3, Math.floor(plan.rounds / 2));
    for (let round = 0; round < hostRounds; round += 1) {
      const steps = [
        async () => {
          await oldRunner.run("git status --porcelain", oldOptions);
          hostTimes.old.push(await hostStatus(path.join(oldRoot, ".git"), oldRoot));
        },
        async () => {
          await newRunner.run("git status --porcelain", optionsOf(asCheckedOut));
          hostTimes.new.push(
            await hostStatus(asCheckedOut.repository.gitDirectory, asCheckedOut.workspaceRoot),
          );
        },
      ];
      for (const step of round % 2 === 0 ? steps : steps.reverse()) await step();
    }
    const hostPaired = comparePaired(hostTimes.new, hostTimes.old);
    rows.push({
      benchmark: BENCHMARK,
      case: `${plan.label}: host \`git status\` right after a \`git status\` in the sandbox (as commit's \`git add\` would be), new against old (median; range new ${range(hostTimes.new)} ms, old ${range(hostTimes.old)} ms, n=${hostRounds})`,
      value: roundTo(hostPaired.subject.median, 1),
      unit: "ms",
      baseline: roundTo(hostPaired.baseline.median, 1),
      baselineLabel: "old layout",
      ratio: roundTo(hostPaired.ratioMedian),
    });
  } finally {
    oldRunner.close();
    newRunner.close();
    fixRunner.close();
    await rm(folder, { recursive: true, force: true });
  }
  return rows;
}

/**
 * `git status` and `git diff` run by the agent inside the warm sandbox, old layout (`.git` inside
 * the work tree, writable but for config and hooks) against the new one (the git directory
 * mounted read-only), on this project's files and on the large repository of the checkout bench.
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
  const scratch = await mkdtemp(
    path.join(await chooseOutsideScratch(), "agentforge-bench-layout-sandbox-git-"),
  );
  try {
    const project = await buildProjectRepository(PROJECT_DIR, parent.commit, scratch);
    const large = await buildLargeRepository(PROJECT_DIR);
    const rows: BenchRow[] = [
      {
        benchmark: BENCHMARK,
        case: `checkouts written to ${path.dirname(scratch)} (disk), flushed before timing; sandbox uid 65534 sees the host's files as its own`,
        value: 2,
        unit: "repositories",
      },
    ];
    rows.push(
      ...(await measureRepository(
        {
          label: "project repository",
          bareDir: project.bareDir,
          files: project.files,
          rounds: 20,
          budgetMs: 30_000,
        },
        scratch,
        Parent,
      )),
    );
    rows.push(
      ...(await measureRepository(
        {
          label: "large repository",
          bareDir: large.bareDir,
          files: large.files,
          rounds: 8,
          budgetMs: 80_000,
        },
        scratch,
        Parent,
      )),
    );
    return rows;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
};

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const row of await run()) console.log(JSON.stringify(row));
}
