import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Octokit } from "@octokit/rest";
import { setBashGrammarDirectory } from "../../core/policy/index.js";
import { runGitHubJob } from "../github/jobs/run-github-job.js";
import { createCoreIo } from "./create-core-io.js";
import { runAction } from "./run-action.js";

/**
 * The Action's entry, bundled into dist/action.js. The bundle ships the bash grammar's
 * WebAssembly files beside itself, since a workflow has no node_modules for this action.
 */
const bundleDirectory = path.dirname(fileURLToPath(import.meta.url));
if (existsSync(path.join(bundleDirectory, "tree-sitter-bash.wasm"))) setBashGrammarDirectory(bundleDirectory);

const controller = new AbortController();
// The runner sends SIGINT, then SIGTERM, when a workflow run is cancelled.
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.once(signal, () => controller.abort(new Error(`cancelled (${signal})`)));

const exitCode = await runAction({
  env: process.env,
  io: createCoreIo(),
  createOctokit: ({ token, baseUrl }) =>
    new Octokit({ auth: token, baseUrl, userAgent: "agentforge-action" }),
  runGitHubJob,
  signal: controller.signal,
});
process.exitCode = exitCode;
