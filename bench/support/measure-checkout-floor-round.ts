import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, readdir, rm, stat } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { basicAuthorizationHeader } from "../../src/core/git/host-git-environment.js";
import { createRepositoryCache } from "../../src/doors/github/workspace/create-repository-cache.js";

const execFileAsync = promisify(execFile);

export type Transport = "file" | "http";

export interface FloorRound {
  readonly transport: Transport;
  readonly plainMs: number;
  readonly coldMs: number;
  /** Warm, over the spare the cold task's end left (only the changed files are written). */
  readonly warmMs: number;
  /** Writing that spare after the cold task ended, off the next task's path. */
  readonly spareMs: number;
  /** Warm again after another push, with the spare already used: the whole tree is written. */
  readonly warmWrittenMs: number;
  /** read-tree + checkout-index -a of the same commit from the warm mirror, into an empty folder. */
  readonly floorMs: number;
  /** Objects the push between cold and warm added, and objects the warm checkout stored. */
  readonly newObjects: number;
  readonly warmObjectsStored: number;
  /** Bytes of the packs the warm checkout added to the mirror. */
  readonly warmPackBytes: number;
  /** What the server sent the warm checkout (http only). */
  readonly warmBytesServed: number | null;
  /** The mirror-only clones considered, file:// rounds only: blobless, treeless, depth 1. */
  readonly consideredMs: {
    readonly blobless: number;
    readonly treeless: number;
    readonly shallow: number;
  } | null;
}

export interface FloorRoundOptions {
  readonly transport: Transport;
  readonly cloneUrl: string;
  /** The served bare repository; each round pushes one commit to it. */
  readonly remoteDir: string;
  readonly scratch: string;
  readonly token: string;
  readonly shouldFlush: boolean;
  readonly round: number;
  /** Starts counting bytes the server sends; null where there is no server to ask. */
  readonly bytesServedSince: (() => () => number) | null;
}

const CLEAN_ENV = {
  PATH: process.env["PATH"] ?? "/usr/bin:/bin",
  HOME: "/nonexistent",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_TERMINAL_PROMPT: "0",
};

async function git(
  args: readonly string[],
  env: Record<string, string> = {},
  input?: string,
): Promise<string> {
  const run = execFileAsync("git", args, { env: { ...CLEAN_ENV, ...env }, maxBuffer: 256 * 1024 * 1024 });
  if (input !== undefined) run.child.stdin?.end(input);
  return (await run).stdout.trim();
}

async function timed(action: () => Promise<unknown>, shouldFlush: boolean): Promise<number> {
  if (shouldFlush) await execFileAsync("sync");
  const started = performance.now();
  await action();
  return performance.now() - started;
}

async function packsOf(gitDirectory: string): Promise<Set<string>> {
  const folder = path.join(gitDirectory, "objects", "pack");
  const names = await readdir(folder);
  return new Set(names.filter((name) => name.endsWith(".idx")).map((name) => path.join(folder, name)));
}

async function idsInPack(index: string): Promise<string[]> {
  const run = execFileAsync("git", ["show-index"], { env: CLEAN_ENV, maxBuffer: 256 * 1024 * 1024 });
  run.child.stdin?.end(await readFile(index));
  // "<offset> <id> (<crc>)" per object
  return (await run).stdout
    .split("\n")
    .map((line) => line.split(" ")[1])
    .filter((id): id is string => id !== undefined);
}

/**
 * Objects the mirror did not hold before, and the bytes of the packs that brought them. A thin
 * pack's delta bases, which git appends from objects it already has, are not counted as new.
 */
async function newPackContents(
  before: Set<string>,
  after: Set<string>,
): Promise<{ objects: number; bytes: number }> {
  const known = new Set<string>();
  for (const index of before) for (const id of await idsInPack(index)) known.add(id);
  const added = new Set<string>();
  let bytes = 0;
  for (const index of after) {
    if (before.has(index)) continue;
    for (const id of await idsInPack(index)) if (!known.has(id)) added.add(id);
    bytes += (await stat(index.replace(/\.idx$/, ".pack"))).size;
  }
  return { objects: added.size, bytes };
}

/** A push of another person: three source files changed, as most commits do. */
async function pushCommit(remoteDir: string, round: number): Promise<number> {
  const before = await git(["--git-dir", remoteDir, "rev-parse", "main"]);
  const lines = [
    `commit refs/heads/main`,
    `committer Bench <bench@example.invalid> ${1_800_000_000 + round} +0000`,
  ];
  const message = `Bench push ${round}\n`;
  const files = [0, 1, 2].map((index) => `src/module-${round % 20}/part-${index}/file-${round % 50}.ts`);
  const stream = [
    ...lines,
    `data ${Buffer.byteLength(message)}`,
    message,
    `from ${before}`,
    ...files.flatMap((file) => {
      const content = `export const pushed = ${round}; // ${file}\n`;
      return [`M 100644 inline ${file}`, `data ${Buffer.byteLength(content)}`, content];
    }),
    "done",
    "",
  ].join("\n");
  await git(["--git-dir", remoteDir, "fast-import", "--quiet", "--done"], {}, stream);
  const listed = await git(["--git-dir", remoteDir, "rev-list", "--objects", `${before}..main`]);
  return listed.split("\n").filter((line) => line.length > 0).length;
}

/**
 * One round: a plain full clone, our checkout cold (a fresh cache), a push, our checkout warm,
 * and the floor: the same tree written from the warm mirror with git's own plumbing.
 */
export async function measureCheckoutFloorRound(options: FloorRoundOptions): Promise<FloorRound> {
  const { transport, cloneUrl, scratch, shouldFlush, token } = options;
  const header = transport === "http" ? ["-c", `http.extraHeader=${basicAuthorizationHeader(token)}`] : [];
  const roundDir = await mkdtemp(path.join(scratch, `round-${transport}-`));
  try {
    const plainMs = await timed(
      () => git([...header, "clone", "--quiet", "--no-local", cloneUrl, path.join(roundDir, "plain")]),
      shouldFlush,
    );
    await rm(path.join(roundDir, "plain"), { recursive: true, force: true });

    let consideredMs: FloorRound["consideredMs"] = null;
    if (transport === "file") {
      const clone = (flag: string, name: string): Promise<number> =>
        timed(
          () => git(["clone", "--quiet", "--bare", "--no-local", flag, cloneUrl, path.join(roundDir, name)]),
          shouldFlush,
        );
      consideredMs = {
        blobless: await clone("--filter=blob:none", "blobless.git"),
        treeless: await clone("--filter=tree:0", "treeless.git"),
        shallow: await clone("--depth=1", "shallow.git"),
      };
      for (const name of ["blobless.git", "treeless.git", "shallow.git"])
        await rm(path.join(roundDir, name), { recursive: true, force: true });
    }

    const cacheDir = path.join(roundDir, "cache");
    const cache = createRepositoryCache({ cacheDir, spareTrees: 1 });
    const request = { cloneUrl, token, ref: "main", branch: `agentforge/issue-${options.round}` };
    let cold: Awaited<ReturnType<typeof cache.checkout>> | undefined;
    const coldMs = await timed(async () => (cold = await cache.checkout(request)), shouldFlush);
    if (cold?.cacheState !== "cold") throw new Error("the first checkout did not clone the mirror");
    const spareStarted = performance.now();
    await cold.cleanup();
    await cache.settled();
    const spareMs = performance.now() - spareStarted;

    const newObjects = await pushCommit(options.remoteDir, options.round);
    const [mirrorName] = await readdir(path.join(cacheDir, "mirrors"));
    const mirror = path.join(cacheDir, "mirrors", mirrorName ?? "");
    const packsBefore = await packsOf(mirror);
    const measureBytes = options.bytesServedSince?.() ?? null;
    let warm: Awaited<ReturnType<typeof cache.checkout>> | undefined;
    const warmMs = await timed(async () => (warm = await cache.checkout(request)), shouldFlush);
    if (warm?.cacheState !== "warm") throw new Error("the second checkout cloned again");
    if (warm.treeSource !== "spare") throw new Error("the second checkout did not use the spare");
    const warmBytesServed = measureBytes === null ? null : measureBytes();
    const stored = await newPackContents(packsBefore, await packsOf(mirror));
    const headSha = warm.headSha;

    // The same warm checkout without a spare: the first warm task still runs, so none is left.
    await pushCommit(options.remoteDir, options.round + 1000);
    let written: Awaited<ReturnType<typeof cache.checkout>> | undefined;
    const warmWrittenMs = await timed(async () => (written = await cache.checkout(request)), shouldFlush);
    if (written?.treeSource !== "written") throw new Error("the third checkout found a spare");
    await written.cleanup();
    await warm.cleanup();
    await cache.settled();

    // The floor: git writes the same tree from a local store holding every blob it needs.
    const floorTree = path.join(roundDir, "floor");
    await mkdir(floorTree);
    const floorEnv = {
      GIT_DIR: mirror,
      GIT_WORK_TREE: floorTree,
      GIT_INDEX_FILE: path.join(roundDir, "floor.index"),
    };
    const floorMs = await timed(async () => {
      await git(["read-tree", headSha], floorEnv);
      await git(["checkout-index", "--all"], floorEnv);
    }, shouldFlush);
    return {
      transport,
      plainMs,
      coldMs,
      warmMs,
      spareMs,
      warmWrittenMs,
      floorMs,
      newObjects,
      warmObjectsStored: stored.objects,
      warmPackBytes: stored.bytes,
      warmBytesServed,
      consideredMs,
    };
  } finally {
    await rm(roundDir, { recursive: true, force: true });
  }
}
