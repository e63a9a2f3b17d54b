import { execFile } from "node:child_process";
import { cp, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
export const BUNDLE_PATH = path.join(root, "dist/action.js");

export interface BundledRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `node dist/action.js` the way a runner does: a fresh process whose environment holds only
 * PATH and the variables given (INPUT_*, GITHUB_*, RUNNER_TEMP). Asynchronous, so servers in the
 * test process keep answering.
 */
export function runBundledAction(
  env: Record<string, string>,
  options: { readonly bundlePath?: string; readonly timeoutMs?: number } = {},
): Promise<BundledRun> {
  return runNode([options.bundlePath ?? BUNDLE_PATH], env, options.timeoutMs);
}

/**
 * Runs the Action's entry from the sources (`node --import tsx src/doors/action/main.ts`), the
 * way the bundle runs, for tests of code the committed bundle may not hold yet.
 */
export function runActionFromSource(
  env: Record<string, string>,
  options: { readonly timeoutMs?: number } = {},
): Promise<BundledRun> {
  return runNode(["--import", "tsx", path.join(root, "src/doors/action/main.ts")], env, options.timeoutMs);
}

function runNode(
  args: readonly string[],
  env: Record<string, string>,
  timeoutMs = 60_000,
): Promise<BundledRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      args,
      {
        cwd: root,
        env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", ...env },
        timeout: timeoutMs,
        maxBuffer: 32 * 1024 * 1024,
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === "number" ? error.code : null) : 0, stdout, stderr }),
    );
  });
}

/**
 * Copies dist/ where no node_modules can be found up the tree, as a workflow sees the action:
 * the bundle must then find everything (the bash grammar's WebAssembly files too) beside itself.
 */
export async function copyBundleOutsideRepository(targetDir: string): Promise<string> {
  await cp(path.join(root, "dist"), path.join(targetDir, "dist"), { recursive: true });
  return path.join(targetDir, "dist", "action.js");
}

/** Reads GITHUB_OUTPUT as the runner does: `name<<DELIMITER`, the value lines, `DELIMITER`. */
export async function readStepOutputs(file: string): Promise<Record<string, string>> {
  const lines = (await readFile(file, "utf8")).split("\n");
  const outputs: Record<string, string> = {};
  for (let index = 0; index < lines.length; index += 1) {
    const match = /^([^<=]+)<<(.+)$/.exec(lines[index]!);
    if (match === null) continue;
    const value: string[] = [];
    for (index += 1; index < lines.length && lines[index] !== match[2]; index += 1) value.push(lines[index]!);
    outputs[match[1]!] = value.join("\n");
  }
  return outputs;
}
