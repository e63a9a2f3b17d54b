#!/usr/bin/env node
// Entry point: runs the compiled CLI in build/ (`npm run build`; `npm ci` runs it as `prepare`).
// It never loads TypeScript: a missing build is one line and exit 1, not a stack trace.
import { existsSync } from "node:fs";

const compiledMain = new URL("../build/doors/cli/main.js", import.meta.url);
if (!existsSync(compiledMain)) {
  const root = new URL("..", import.meta.url).pathname;
  process.stderr.write(
    `agentforge: the compiled CLI is missing (build/doors/cli/main.js): run \`npm run build\` in ${root}\n`,
  );
  process.exit(1);
}
const { main } = await import(compiledMain.href);
process.exitCode = await main(process.argv.slice(2));
