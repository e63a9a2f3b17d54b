import os from "node:os";
import path from "node:path";
import { z } from "zod";

/** What the runner tells the step about where it runs. */
export interface ActionEnvironment {
  readonly eventName: string;
  readonly eventPath: string | undefined;
  readonly owner: string;
  readonly repo: string;
  readonly workspace: string;
  readonly apiUrl: string;
  readonly serverUrl: string;
  /** A link to this workflow run, for the progress comment and the summary. */
  readonly runUrl: string | undefined;
  readonly runnerTemp: string;
  readonly actor: string | undefined;
  /** The step's id (`GITHUB_ACTION`), which names its output folder. */
  readonly stepId: string | undefined;
  /** Which attempt of the workflow run this is (`GITHUB_RUN_ATTEMPT`). */
  readonly runAttempt: string | undefined;
}

export type ActionEnvironmentResult =
  | { readonly success: true; readonly value: ActionEnvironment }
  | { readonly success: false; readonly error: string };

const text = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === "" ? undefined : value.trim()));

const environmentSchema = z.object({
  GITHUB_EVENT_NAME: text.pipe(z.string({ error: "is not set; is this running in a workflow?" })),
  GITHUB_EVENT_PATH: text,
  GITHUB_REPOSITORY: text.pipe(
    z
      .string({ error: "is not set; is this running in a workflow?" })
      .regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, "must be owner/name"),
  ),
  GITHUB_WORKSPACE: text,
  GITHUB_API_URL: text.pipe(z.url({ protocol: /^https?$/ }).default("https://api.github.com")),
  GITHUB_SERVER_URL: text.pipe(z.url({ protocol: /^https?$/ }).default("https://github.com")),
  GITHUB_RUN_ID: text.pipe(z.string().regex(/^\d+$/, "must be a number").optional()),
  RUNNER_TEMP: text,
  GITHUB_ACTOR: text,
  GITHUB_ACTION: text,
  GITHUB_RUN_ATTEMPT: text.pipe(z.string().regex(/^\d+$/, "must be a number").optional()),
});

/** Reads the runner's variables; `env` is injectable so tests need no global state. */
export function readActionEnvironment(env: NodeJS.ProcessEnv = process.env): ActionEnvironmentResult {
  const parsed = environmentSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${String(issue.path[0])} ${issue.message}`);
    return { success: false, error: problems.join("; ") };
  }
  const value = parsed.data;
  const [owner, repo] = value.GITHUB_REPOSITORY.split("/") as [string, string];
  const serverUrl = value.GITHUB_SERVER_URL.replace(/\/+$/, "");
  return {
    success: true,
    value: {
      eventName: value.GITHUB_EVENT_NAME,
      eventPath: value.GITHUB_EVENT_PATH,
      owner,
      repo,
      workspace: value.GITHUB_WORKSPACE ?? process.cwd(),
      apiUrl: value.GITHUB_API_URL.replace(/\/+$/, ""),
      serverUrl,
      runUrl:
        value.GITHUB_RUN_ID === undefined
          ? undefined
          : `${serverUrl}/${owner}/${repo}/actions/runs/${value.GITHUB_RUN_ID}`,
      runnerTemp: path.resolve(value.RUNNER_TEMP ?? os.tmpdir()),
      actor: value.GITHUB_ACTOR,
      stepId: value.GITHUB_ACTION,
      runAttempt: value.GITHUB_RUN_ATTEMPT,
    },
  };
}
