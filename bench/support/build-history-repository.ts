import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, readdir, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";

/** Bump when the way the repository is built changes, so an old cache is not reused. */
const BUILD_VERSION = 2;
const DIRECTORIES = 20;
const SUBDIRECTORIES = 20;
const FILES_PER_SUBDIRECTORY = 50;
const COMMITS = 20_000;
const FILES_PER_COMMIT = 3;
/** Every this many commits, one of the assets is replaced by a new binary of ASSET_BYTES. */
const ASSET_EVERY = 160;
const ASSETS = 4;
const ASSET_BYTES = 1024 * 1024;
const LINES_PER_FILE = 24;

export interface HistoryRepository {
  /** Folder holding `history.git`; serve it as a project root. */
  readonly projectRoot: string;
  readonly bareDir: string;
  readonly files: number;
  readonly commits: number;
  /** Bytes of the files at the tip (one snapshot). */
  readonly snapshotBytes: number;
  /** Bytes of the packed repository (the whole history). */
  readonly packBytes: number;
  /** 0 when the cached copy was reused. */
  readonly buildMs: number;
}

type Manifest = Omit<HistoryRepository, "projectRoot" | "bareDir" | "buildMs"> & { readonly version: number };

/** A small deterministic generator, so every build makes the same repository. */
function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const WORDS =
  "const let value return function export import async await item list map filter total count index result error config option request response".split(
    " ",
  );

function sourceLine(random: () => number, label: string): string {
  const words = Array.from(
    { length: 6 + Math.floor(random() * 6) },
    () => WORDS[Math.floor(random() * WORDS.length)],
  );
  return `${words.join(" ")} // ${label}\n`;
}

function randomBytesOf(random: () => number, size: number): Buffer {
  const bytes = Buffer.allocUnsafe(size);
  for (let offset = 0; offset + 4 <= size; offset += 4)
    bytes.writeUInt32LE(Math.floor(random() * 4_294_967_296), offset);
  return bytes;
}

async function directoryBytes(directory: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(directory, { withFileTypes: true, recursive: true }))
    if (entry.isFile()) total += (await stat(path.join(entry.parentPath, entry.name))).size;
  return total;
}

function runGit(
  args: readonly string[],
  input?: (write: (chunk: string | Buffer) => Promise<void>) => Promise<void>,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("git", args, {
      stdio: ["pipe", "ignore", "pipe"],
      env: {
        PATH: process.env["PATH"] ?? "/usr/bin:/bin",
        GIT_CONFIG_NOSYSTEM: "1",
        GIT_CONFIG_GLOBAL: "/dev/null",
        HOME: "/nonexistent",
      },
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve() : reject(new Error(`git ${args[0] ?? ""} failed (${String(code)}): ${stderr}`)),
    );
    const write = (chunk: string | Buffer): Promise<void> =>
      new Promise((done) => (child.stdin.write(chunk) ? done() : child.stdin.once("drain", () => done())));
    void (input === undefined ? Promise.resolve() : input(write)).then(() => child.stdin.end(), reject);
  });
}

/**
 * Streams the history to `git fast-import`: a first commit with every file, then COMMITS - 1
 * commits that each change a few lines of a few files, and every ASSET_EVERY commits a new
 * version of one binary asset. One snapshot is then a small part of the history, as in a
 * repository that has lived for years.
 */
async function importHistory(bareDir: string): Promise<{ files: number; snapshotBytes: number }> {
  const random = createRandom(17);
  const paths: string[] = [];
  for (let directory = 0; directory < DIRECTORIES; directory += 1)
    for (let subdirectory = 0; subdirectory < SUBDIRECTORIES; subdirectory += 1)
      for (let file = 0; file < FILES_PER_SUBDIRECTORY; file += 1)
        paths.push(`src/module-${directory}/part-${subdirectory}/file-${file}.ts`);
  const contents = paths.map((filePath) =>
    Array.from({ length: LINES_PER_FILE }, () => sourceLine(random, filePath)),
  );
  const assets: Buffer[] = Array.from({ length: ASSETS }, () => randomBytesOf(random, ASSET_BYTES));
  const text = (lines: readonly string[]): string => lines.join("");
  await runGit(["--git-dir", bareDir, "fast-import", "--quiet", "--done"], async (write) => {
    const data = async (payload: string | Buffer): Promise<void> => {
      const bytes = typeof payload === "string" ? Buffer.from(payload, "utf8") : payload;
      await write(`data ${bytes.length}\n`);
      await write(bytes);
      await write("\n");
    };
    for (let commit = 0; commit < COMMITS; commit += 1) {
      const when = 1_700_000_000 + commit * 600;
      await write(`commit refs/heads/main\ncommitter Bench <bench@example.invalid> ${when} +0000\n`);
      await data(commit === 0 ? "Initial import\n" : `Change ${commit}\n`);
      if (commit === 0) {
        for (let index = 0; index < paths.length; index += 1) {
          await write(`M 100644 inline ${paths[index]}\n`);
          await data(text(contents[index] ?? []));
        }
        for (let asset = 0; asset < ASSETS; asset += 1) {
          await write(`M 100644 inline assets/asset-${asset}.bin\n`);
          await data(assets[asset] ?? Buffer.alloc(0));
        }
        continue;
      }
      for (let change = 0; change < FILES_PER_COMMIT; change += 1) {
        const index = Math.floor(random() * paths.length);
        const lines = contents[index] ?? [];
        lines[Math.floor(random() * lines.length)] = sourceLine(random, `change ${commit}`);
        await write(`M 100644 inline ${paths[index]}\n`);
        await data(text(lines));
      }
      if (commit % ASSET_EVERY === 0) {
        const asset = (commit / ASSET_EVERY) % ASSETS;
        assets[asset] = randomBytesOf(random, ASSET_BYTES);
        await write(`M 100644 inline assets/asset-${asset}.bin\n`);
        await data(assets[asset] ?? Buffer.alloc(0));
      }
    }
    await write("done\n");
  });
  const snapshotBytes =
    contents.reduce((sum, lines) => sum + Buffer.byteLength(text(lines)), 0) + ASSETS * ASSET_BYTES;
  return { files: paths.length + ASSETS, snapshotBytes };
}

/**
 * A bare repository with a long history (COMMITS commits over a work tree of 20,004 files),
 * built with `git fast-import` in well under a minute and cached under `parent` (the bench's
 * scratch folder), so later runs reuse it at once.
 */
export async function buildHistoryRepository(parent: string): Promise<HistoryRepository> {
  const projectRoot = path.join(parent, `agentforge-bench-history-v${BUILD_VERSION}`);
  const bareDir = path.join(projectRoot, "history.git");
  try {
    const manifest = JSON.parse(await readFile(path.join(projectRoot, "manifest.json"), "utf8")) as Manifest;
    if (manifest.version === BUILD_VERSION) return { projectRoot, bareDir, ...manifest, buildMs: 0 };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const started = performance.now();
  // Built beside the final place and renamed, so a killed build never looks finished.
  const partial = await mkdtemp(path.join(parent, "agentforge-bench-history-partial-"));
  try {
    const partialBare = path.join(partial, "history.git");
    await runGit(["init", "--quiet", "--bare", "--initial-branch=main", partialBare]);
    const { files, snapshotBytes } = await importHistory(partialBare);
    // Packed as a hosting service serves it, once: one pack with deltas computed afresh over the
    // whole history (`-f`; fast-import's own deltas run forward from the oldest version, so the
    // tip's blobs would be deltas whose bases a fetch of the tip does not send), and reachability
    // bitmaps. The plain clone and the partial fetches are served from this same pack.
    await runGit(["--git-dir", partialBare, "repack", "-a", "-d", "-f", "-q", "--write-bitmap-index"]);
    const manifest: Manifest = {
      version: BUILD_VERSION,
      files,
      commits: COMMITS,
      snapshotBytes,
      packBytes: await directoryBytes(path.join(partialBare, "objects", "pack")),
    };
    await writeFile(path.join(partial, "manifest.json"), JSON.stringify(manifest));
    await rm(projectRoot, { recursive: true, force: true });
    await mkdir(parent, { recursive: true });
    await rename(partial, projectRoot);
    return { projectRoot, bareDir, ...manifest, buildMs: performance.now() - started };
  } catch (error) {
    await rm(partial, { recursive: true, force: true });
    throw error;
  }
}
