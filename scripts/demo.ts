/**
 * The offline demo: a scripted model (served over HTTP by the mock-model server) fixes a bug in a
 * tiny repository through `agentforge run`, with the real tools, policy and sandbox. Then the
 * trace is told as a story and written as an HTML report.
 */
import { spawn, spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { detectSandbox } from "../src/core/sandbox/index.js";
import { parseMockScript } from "../src/mock-model/mock-script.js";
import { startMockModelServer } from "../src/mock-model/start-mock-model-server.js";
import { describeMissingSandbox } from "./describe-missing-sandbox.js";

if (process.env["AGENTFORGE_SANDBOX"] !== "none") {
  const missing = describeMissingSandbox(await detectSandbox());
  if (missing !== null) {
    console.error(missing);
    process.exit(69);
  }
}

const root = resolve(import.meta.dirname, "..");
const work = mkdtempSync(join(tmpdir(), "agentforge-demo-"));
const repo = join(work, "repo");
cpSync(join(root, "demo", "repo"), repo, { recursive: true });
spawnSync("git", ["init", "-q"], { cwd: repo });
spawnSync("git", ["-c", "user.name=demo", "-c", "user.email=demo@example.invalid", "add", "-A"], {
  cwd: repo,
});
spawnSync("git", ["-c", "user.name=demo", "-c", "user.email=demo@example.invalid", "commit", "-qm", "demo"], {
  cwd: repo,
});

const script = parseMockScript(readFileSync(join(root, "demo", "script.json"), "utf8"));
if (!script.success) throw new Error(script.error);
const server = await startMockModelServer({ script: script.value });
const trace = join(work, "trace.jsonl");
// The CLI runs as a child process while this process keeps serving the scripted model.
const cli = (args: string[]) =>
  new Promise<number>((done) => {
    const child = spawn(process.execPath, [join(root, "bin", "agentforge.js"), ...args], {
      stdio: "inherit",
      env: {
        ...process.env,
        OPENAI_BASE_URL: server.url,
        OPENAI_API_KEY: "demo",
        AGENTFORGE_MODEL: "gpt-4.1-mini",
        AGENTFORGE_DATA_DIR: join(work, "data"),
      },
    });
    child.on("close", (code) => done(code ?? 1));
  });

console.log(`\n== agentforge run (scripted model at ${server.url}, repository ${repo})\n`);
const status = await cli([
  "run",
  "The slugify tests fail; fix the bug.",
  "--cwd",
  repo,
  "--approval",
  "never",
  "--allow",
  "node test.js",
  "--trace",
  trace,
]);
await server.close();
console.log("\n== agentforge trace\n");
await cli(["trace", trace, "--html", join(work, "report.html")]);
console.log(`\nHTML report: ${join(work, "report.html")}`);
process.exitCode = status;
