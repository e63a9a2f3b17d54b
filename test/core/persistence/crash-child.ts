import { spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { repositoryRoot } from "./persistence-test-helpers.js";

/**
 * Runs `script` (an ES module, TypeScript allowed) in a real Node process that loads the sources
 * through tsx, waits until it prints "ready", lets it work `workMs` longer and kills it with
 * SIGKILL: no exit handler, no flush, exactly what a crash or an OOM kill does.
 */
export async function runAndKill(
  dir: string,
  script: string,
  workMs: number,
): Promise<{ readonly signal: string | null }> {
  const scriptPath = join(dir, "child.mts");
  await writeFile(scriptPath, script);
  const child = spawn(process.execPath, ["--import", "tsx", scriptPath], {
    cwd: fileURLToPath(repositoryRoot),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<{ signal: string | null; code: number | null }>((resolve) => {
    child.on("exit", (code, signal) => resolve({ code, signal }));
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("ready")) resolve();
    });
    void exited.then(({ code }) => reject(new Error(`child exited early (code ${String(code)}): ${stderr}`)));
  });
  await new Promise((resolve) => setTimeout(resolve, workMs));
  child.kill("SIGKILL");
  const { signal } = await exited;
  return { signal };
}
