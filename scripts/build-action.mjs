// Builds the Action's bundle: dist/action.js plus the bash parser's WebAssembly files beside it.
// Usage: node scripts/build-action.mjs [--outdir DIR]   (default: dist)
// The output must be byte-for-byte reproducible: test/doors/action/bundle-is-current.test.ts
// rebuilds into a temporary folder and compares it with the committed files.
import { copyFile, mkdir } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { build } from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({ options: { outdir: { type: "string", default: "dist" } } });
const outdir = path.resolve(root, values.outdir);
const require = createRequire(import.meta.url);

/** The WebAssembly files the command policy loads (see src/core/policy/bash-grammar-location.ts). */
const wasmFiles = [
  path.join(path.dirname(require.resolve("tree-sitter-bash/package.json")), "tree-sitter-bash.wasm"),
  require.resolve("web-tree-sitter/tree-sitter.wasm"),
];

await mkdir(outdir, { recursive: true });
const result = await build({
  absWorkingDir: root,
  entryPoints: ["src/doors/action/main.ts"],
  outfile: path.join(outdir, "action.js"),
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  // Bundled CommonJS packages call require() for Node built-ins; ESM output has none by itself.
  banner: {
    js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
  },
  // A native addon cannot be bundled, and the Action has no queue; an import of it would fail loudly.
  external: ["better-sqlite3"],
  legalComments: "eof",
  logLevel: "warning",
  metafile: true,
});
for (const file of wasmFiles) await copyFile(file, path.join(outdir, path.basename(file)));
const bytes = Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
console.log(`built ${path.relative(root, path.join(outdir, "action.js"))} (${(bytes / 1e6).toFixed(1)} MB)`);
