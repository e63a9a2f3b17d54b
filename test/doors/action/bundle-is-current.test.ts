import { execFile } from "node:child_process";
import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const run = promisify(execFile);

describe("dist/ (the committed Action bundle)", () => {
  let outdir: string;

  beforeAll(async () => {
    outdir = await mkdtemp(path.join(os.tmpdir(), "agentforge-bundle-"));
    await run(process.execPath, [path.join(root, "scripts/build-action.mjs"), "--outdir", outdir], {
      cwd: root,
    });
  }, 60_000);

  afterAll(async () => {
    await rm(outdir, { recursive: true, force: true });
  });

  it("is byte-for-byte what the build makes from the current source (run the build and commit dist/)", async () => {
    const built = (await readdir(outdir)).sort();
    expect(built).toEqual(["action.js", "tree-sitter-bash.wasm", "tree-sitter.wasm"]);
    for (const file of built) {
      const fresh = await readFile(path.join(outdir, file));
      const committed = await readFile(path.join(root, "dist", file));
      // A plain equality on Buffers would print megabytes on failure.
      expect({ file, isCurrent: fresh.equals(committed) }).toEqual({ file, isCurrent: true });
    }
  });

  it("keeps Node 20 syntax, bundles no native addon and no pino transport", async () => {
    const bundle = await readFile(path.join(root, "dist/action.js"), "utf8");
    expect(bundle.startsWith("import { createRequire as __cr }")).toBe(true);
    expect(bundle).not.toMatch(/require\("better-sqlite3"\)|from "better-sqlite3"/);
    expect(bundle).not.toContain("thread-stream");
    expect(bundle).not.toContain('from "probot"');
  });
});
