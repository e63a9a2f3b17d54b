// Compiles src/**/*.ts into build/, one JavaScript file per source file, same folder structure
// (src/doors/cli/main.ts -> build/doors/cli/main.js). bin/agentforge.js runs build/; nothing
// compiles TypeScript at run time.
// Usage: node scripts/build-cli.mjs [--outdir DIR]   (default: build)
//
// A per-file transpile, not a bundle: the sources keep their own module graph (lazy imports stay
// lazy, so `--help` loads only commander and the CLI's first files), native and WebAssembly
// dependencies resolve from node_modules as they do from src, and a stack trace names the file
// (same path, .js for .ts). esbuild rather than `tsc` emit: types are checked by `npm run typecheck`; this only strips
// them, in well under a second, so jest's global setup can rebuild before every test run.
import { readdir, rm } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({ options: { outdir: { type: "string", default: "build" } } });
const outdir = path.resolve(root, values.outdir);
const sourceFolder = path.join(root, "src");

// esbuild is a dev dependency: `npm ci --omit=dev` on a clone cannot build, and says so in one line.
const esbuild = await import("esbuild").catch((error) => {
  if (error?.code !== "ERR_MODULE_NOT_FOUND") throw error;
  console.error(
    "build-cli: esbuild (a dev dependency) is not installed: run `npm ci` with dev dependencies to compile src/ into build/ (then `npm prune --omit=dev` if you want them gone)",
  );
  process.exit(1);
});

const started = performance.now();
const entries = await readdir(sourceFolder, { recursive: true, withFileTypes: true });
const entryPoints = entries
  .filter((entry) => entry.isFile() && entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts"))
  .map((entry) => path.join(entry.parentPath, entry.name))
  .sort();

// A file removed from src must not linger in build/ and keep being importable.
await rm(outdir, { recursive: true, force: true });
await esbuild.build({
  absWorkingDir: root,
  entryPoints,
  outdir,
  outbase: sourceFolder,
  bundle: false,
  platform: "node",
  target: "node20",
  format: "esm",
  logLevel: "warning",
  // create-token-counter.ts calls require() only where it exists (the Action's bundle) and falls
  // back to createRequire in plain ESM, which is what this output is.
  logOverride: { "unsupported-require-call": "silent" },
});
const milliseconds = Math.round(performance.now() - started);
console.log(`built ${entryPoints.length} files into ${path.relative(root, outdir)}/ (${milliseconds} ms)`);
