import { execFile } from "node:child_process";
import { appendFile, mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import type { HostRepository } from "../src/core/git/host-repository.js";
import { runHostGit } from "../src/core/git/run-host-git.js";
import { commitAndPush } from "../src/doors/github/workspace/commit-and-push.js";
import { createRepositoryCache } from "../src/doors/github/workspace/create-repository-cache.js";
import type { Benchmark, BenchRow } from "./bench-types.js";
import { buildProjectRepository } from "./support/build-project-repository.js";
import { makeParentLayoutCheckout } from "./support/make-parent-layout-checkout.js";
import { comparePaired, measureInTurns } from "./support/measure-in-turns.js";
import { importParentModule, prepareParentSources } from "./support/prepare-parent-sources.js";
import { roundTo, summarizeSamples } from "./support/summarize-samples.js";

const execFileAsync = promisify(execFile);
const PROJECT_DIR = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const BENCHMARK = "layout-host-git";
const BRANCH = "agentforge/issue-1";
const CALL_ROUNDS = 60;
const COMMIT_ROUNDS = 12;
const BUDGET_MS = 30_000;
const AUTHOR = { name: "AgentForge Bench", email: "bench@example.invalid" };

interface ParentGitModule {
  createGit(options: { baseDirectory: string }): { raw(args: string[]): Promise<string> };
}

interface ParentCommitModule {
  commitAndPush(options: {
    workspaceRoot: string;
    branch: string;
    message: string;
    author: { name: string; email: string };
    token: string;
    remoteUrl: string;
  }): Promise<{ pushed: boolean; error?: string }>;
}

/** Typical calls of a task: the checkout resolves, commit checks and stages, the diff is read. */
const CALLS: ReadonlyArray<readonly [label: string, args: readonly string[], note: string]> = [
  ["rev-parse HEAD", ["rev-parse", "HEAD"], "prints the commit"],
  ["status --porcelain", ["status", "--porcelain"], "prints one changed file"],
  ["diff", ["diff"], "prints one file's diff"],
  ["diff --cached --name-only", ["diff", "--cached", "--name-only"], "prints nothing (nothing staged)"],
  ["check-ref-format", ["check-ref-format", `refs/heads/${BRANCH}`], "prints nothing"],
];

function skipped(reason: string): BenchRow[] {
  process.stderr.write(`${BENCHMARK}: skipped: ${reason}\n`);
  return [{ benchmark: BENCHMARK, case: `skipped: ${reason}`, value: Number.NaN, unit: "ms" }];
}

function range(samples: readonly number[]): string {
  const summary = summarizeSamples(samples);
  return `${roundTo(summary.min, 1)}–${roundTo(summary.max, 1)}`;
}

/**
 * The host's git per call and for one commit and push: main's `runHostGit` (execFile, an
 * environment from an allowlist, the repository named explicitly and checked) against the parent
 * commit's simple-git instance (`createGit`), each on its own layout of the same checkout, with a
 * bare `execFile("git")` as the floor.
 */
export const run: Benchmark = async () => {
  const parent = await prepareParentSources(PROJECT_DIR, { needsSimpleGit: true });
  if (!parent.available) return skipped(parent.reason);
  if (parent.simpleGitProblem !== undefined) return skipped(parent.simpleGitProblem);
  const OldGit = await importParentModule<ParentGitModule>(
    parent,
    "src/doors/github/workspace/create-git.ts",
  );
  const OldCommit = await importParentModule<ParentCommitModule>(
    parent,
    "src/doors/github/workspace/commit-and-push.ts",
  );
  const scratch = await mkdtemp(path.join(os.tmpdir(), "agentforge-bench-layout-host-git-"));
  try {
    const project = await buildProjectRepository(PROJECT_DIR, parent.commit, scratch);
    const cloneUrl = pathToFileURL(project.bareDir).href;
    const cache = createRepositoryCache({ cacheDir: path.join(scratch, "cache") });
    const checkout = await cache.checkout({ cloneUrl, token: "unused", ref: "main", branch: BRANCH });
    const repository: HostRepository & { workTree: string } = checkout.repository;
    const oldRoot = path.join(scratch, "old", "workspace");
    await mkdir(path.dirname(oldRoot), { recursive: true });
    await makeParentLayoutCheckout({
      mirror: project.bareDir,
      workspaceRoot: oldRoot,
      cloneUrl,
      sha: checkout.headSha,
      branch: BRANCH,
    });
    const { stdout: listed } = await execFileAsync("git", ["-C", oldRoot, "ls-files", "-z"]);
    const edited = listed.split("\0")[0] ?? "";
    for (const root of [oldRoot, repository.workTree])
      await appendFile(path.join(root, edited), "\n// edited by the bench\n");

    const oldGit = OldGit.createGit({ baseDirectory: oldRoot });
    const floorEnvironment = {
      PATH: process.env["PATH"] ?? "/usr/bin:/bin",
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
    };
    const rows: BenchRow[] = [
      {
        benchmark: BENCHMARK,
        case: `checkout of ${project.files} files, one edited; old: simple-git ${parent.simpleGitVersion ?? "?"} via ${parent.commit.slice(0, 12)}'s createGit`,
        value: CALLS.length,
        unit: "calls",
      },
    ];
    for (const [label, args, note] of CALLS) {
      const samples = await measureInTurns(
        [
          [
            "execFile git",
            () => execFileAsync("git", [...args], { cwd: repository.workTree, env: floorEnvironment }),
          ],
          ["old: simple-git", () => oldGit.raw([...args])],
          ["new: runHostGit", () => runHostGit(repository, args)],
        ],
        { rounds: CALL_ROUNDS, warmupRounds: 3, budgetMs: BUDGET_MS },
      );
      const floor = samples.get("execFile git") ?? [];
      const older = samples.get("old: simple-git") ?? [];
      const newer = samples.get("new: runHostGit") ?? [];
      const paired = comparePaired(newer, older);
      const overFloor = (values: readonly number[]): number => comparePaired(values, floor).differenceMedian;
      rows.push({
        benchmark: BENCHMARK,
        case: `\`git ${label}\` (${note}): runHostGit against simple-git (median; range new ${range(newer)} ms, old ${range(older)} ms, execFile ${range(floor)} ms; paired, n=${newer.length})`,
        value: roundTo(paired.subject.median),
        unit: "ms",
        baseline: roundTo(paired.baseline.median),
        baselineLabel: "simple-git",
        ratio: roundTo(paired.ratioMedian),
        target: `over a bare execFile (median ${roundTo(summarizeSamples(floor).median)} ms): new +${roundTo(overFloor(newer))} ms, old +${roundTo(overFloor(older))} ms`,
      });
    }

    // One commit and push per round and design: stage the edit, commit, push to a bare remote.
    const remotes = { old: path.join(scratch, "remote-old.git"), new: path.join(scratch, "remote-new.git") };
    for (const remote of Object.values(remotes))
      await execFileAsync("git", ["clone", "--quiet", "--bare", project.bareDir, remote]);
    let counter = 0;
    const message = (): string => `Bench commit ${(counter += 1)}`;
    const commits = await measureInTurns(
      [
        [
          "old",
          async () => {
            await appendFile(path.join(oldRoot, edited), `// ${counter}\n`);
            const result = await OldCommit.commitAndPush({
              workspaceRoot: oldRoot,
              branch: BRANCH,
              message: message(),
              author: AUTHOR,
              token: "unused",
              remoteUrl: pathToFileURL(remotes.old).href,
            });
            if (!result.pushed) throw new Error(`old commitAndPush: ${result.error ?? "not pushed"}`);
          },
        ],
        [
          "new",
          async () => {
            await appendFile(path.join(repository.workTree, edited), `// ${counter}\n`);
            const result = await commitAndPush({
              repository,
              branch: BRANCH,
              message: message(),
              author: AUTHOR,
              token: "unused",
              remoteUrl: pathToFileURL(remotes.new).href,
            });
            if (!result.pushed) throw new Error(`new commitAndPush: ${result.error ?? "not pushed"}`);
          },
        ],
      ],
      { rounds: COMMIT_ROUNDS, warmupRounds: 1, budgetMs: BUDGET_MS },
    );
    const newCommits = commits.get("new") ?? [];
    const oldCommits = commits.get("old") ?? [];
    const paired = comparePaired(newCommits, oldCommits);
    rows.push({
      benchmark: BENCHMARK,
      case: `commitAndPush (checks, nested-repository scan, add, diff --cached, commit, rev-parse, push to a local bare remote): new against old (median; range new ${range(newCommits)} ms, old ${range(oldCommits)} ms; paired, n=${newCommits.length})`,
      value: roundTo(paired.subject.median, 1),
      unit: "ms",
      baseline: roundTo(paired.baseline.median, 1),
      baselineLabel: "old commitAndPush",
      ratio: roundTo(paired.ratioMedian),
      target: `new − old ${roundTo(paired.differenceMedian, 0)} ms (paired median)`,
    });
    return rows;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
};

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const row of await run()) console.log(JSON.stringify(row));
}
