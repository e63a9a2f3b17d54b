import type { ModelClient } from "../../core/model/index.js";
import type { Redactor } from "../../core/safety/index.js";
import type { GitHubJob, JobDependencies, JobOutcome } from "../github/jobs/github-job.js";
import type { GitHubRequester } from "../github/pull-request/github-requester.js";
import type { ActionEnvironment } from "./action-environment.js";
import type { ActionInputs } from "./action-inputs.js";
import type { ActionIo } from "./action-io.js";

/** What the entry point gives the Action; tests pass their own model, GitHub client and io. */
export interface ActionDependencies {
  readonly env: NodeJS.ProcessEnv;
  readonly io: ActionIo;
  readonly createOctokit: (options: { readonly token: string; readonly baseUrl: string }) => GitHubRequester;
  readonly runGitHubJob: (job: GitHubJob, dependencies: JobDependencies) => Promise<JobOutcome>;
  readonly signal: AbortSignal;
  /** A model client for tests; otherwise built from the inputs and OPENAI_* variables. */
  readonly model?: ModelClient;
}

/** The parsed step: inputs, runner variables, secrets and where its files go. */
export interface ActionContext {
  readonly inputs: ActionInputs;
  readonly environment: ActionEnvironment;
  readonly dependencies: ActionDependencies;
  readonly secrets: readonly string[];
  readonly redactor: Redactor;
  /** This step's own folder under `${RUNNER_TEMP}/agentforge/`: trace, report and run data. */
  readonly outputDir: string;
  readonly tracePath: string;
  /** The repository cache, shared by the job's AgentForge steps (see createStepFolder). */
  readonly cacheDir: string;
}
