import { runLimits } from "../../../../src/core/config/run-limits.js";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Octokit } from "@octokit/rest";
import { createAgentRunner } from "../../../../src/core/create-agent-runner.js";
import type { ModelClient } from "../../../../src/core/model/model-types.js";
import { createSandboxRunner } from "../../../../src/core/sandbox/create-sandbox-runner.js";
import type { GitHubJob, JobDependencies } from "../../../../src/doors/github/jobs/github-job.js";
import { createRepositoryCache } from "../../../../src/doors/github/workspace/create-repository-cache.js";
import {
  startGitHubStandIn,
  type GitHubStandIn,
} from "../../../support/github-stand-in/start-github-stand-in.js";

export const OWNER = "octo";
export const REPO = "demo";

export const FILES: Record<string, string> = {
  "sum.js": "function sum(a, b) {\n  return a - b;\n}\nmodule.exports = { sum };\n",
  "test.js":
    'const assert = require("node:assert");\nassert.strictEqual(require("./sum.js").sum(2, 3), 5);\n',
  ".github/agentforge.yml": 'test_commands: ["node test.js"]\nreview:\n  max_comments: 10\n',
};

export interface JobHarness {
  readonly github: GitHubStandIn;
  readonly octokit: Octokit;
  /** Every text the job sent to its progress comment, in order; `finished` is the last one. */
  readonly updates: string[];
  finished: string | null;
  deps(
    model: ModelClient,
    extra?: {
      readonly agent?: Partial<JobDependencies["agent"]>;
      /** The runner's clients for other models (a chosen model's runs go to them). */
      readonly modelFor?: (name: string) => ModelClient;
    },
  ): JobDependencies;
  job(kind: GitHubJob["kind"], number: number, extra?: Partial<GitHubJob>): GitHubJob;
  close(): Promise<void>;
}

/** The real pieces around a job: the stand-in, the repository cache, the sandbox and the core runner. */
export async function createJobHarness(): Promise<JobHarness> {
  const github = await startGitHubStandIn({
    repositories: [{ owner: OWNER, name: REPO, files: FILES }],
    permissions: { alice: "write" },
  });
  const dir = await mkdtemp(path.join(tmpdir(), "agentforge-jobs-"));
  const octokit = new Octokit({ baseUrl: github.apiUrl, auth: github.token });
  const cache = createRepositoryCache({ cacheDir: path.join(dir, "cache") });
  const commandRunner = createSandboxRunner({ mode: "none" });
  const harness: JobHarness = {
    github,
    octokit,
    updates: [],
    finished: null,
    deps(model, extra = {}) {
      const runner = createAgentRunner({
        model,
        ...(extra.modelFor === undefined ? {} : { modelFor: extra.modelFor }),
        dataDir: path.join(dir, "data"),
        commandRunner,
        secrets: [github.token],
        settings: { limits: runLimits({ maxTurns: 10 }), contextWindow: 64_000, configDigest: "test" },
      });
      return {
        github: {
          octokit,
          getToken: () => Promise.resolve(github.token),
          author: { name: "agentforge[bot]", email: "1+agentforge[bot]@users.noreply.github.com" },
          mention: "@agentforge",
        },
        workspace: { cache, commandRunner },
        agent: { runner, model, ...extra.agent },
        report: {
          progress: {
            update: async (text) => void harness.updates.push(text),
            finish: async (text) => {
              harness.updates.push(text);
              harness.finished = text;
            },
          },
          redact: (text) => runner.redact(text),
        },
        signal: new AbortController().signal,
      };
    },
    job: (kind, number, extra = {}) => ({
      kind,
      owner: OWNER,
      repo: REPO,
      number,
      isPullRequest: kind === "review",
      requester: "alice",
      ...extra,
    }),
    async close() {
      await github.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return harness;
}
