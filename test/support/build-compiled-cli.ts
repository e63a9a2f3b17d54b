import { spawnSync } from "node:child_process";
import path from "node:path";

/**
 * Jest's global setup: compiles src/ into build/ (`npm run build`) before any test runs, so the
 * tests that start bin/agentforge.js as a process run the sources under test, never a stale build.
 * Unit tests import src/ through jest's own transform and do not need it.
 */
export default function buildCompiledCli(): void {
  const script = path.resolve("scripts/build-cli.mjs");
  const result = spawnSync(process.execPath, [script], { encoding: "utf8", timeout: 120_000 });
  if (result.status !== 0)
    throw new Error(
      `npm run build failed before the tests (exit ${String(result.status ?? result.signal)}):\n${result.stdout}${result.stderr}`,
    );
}
