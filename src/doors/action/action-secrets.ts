import type { ActionInputs } from "./action-inputs.js";

/**
 * Every credential the step holds: the workflow (or App) token and the model key, from the inputs
 * or the job's environment. They are masked in the runner log and given to the redactor.
 */
export function collectActionSecrets(inputs: ActionInputs, env: NodeJS.ProcessEnv): string[] {
  const values = [inputs.githubToken, inputs.apiKey, env["OPENAI_API_KEY"], env["GITHUB_TOKEN"]];
  return [...new Set(values.filter((value): value is string => value !== undefined && value.trim() !== ""))];
}

/** The environment the core reads its model settings from, with the step's inputs taking precedence. */
export function buildRuntimeEnvironment(
  inputs: ActionInputs,
  env: NodeJS.ProcessEnv,
  dataDir: string,
): NodeJS.ProcessEnv {
  // The step's inputs are parsed already; no child (git, MCP server, sandbox) needs them, and
  // `INPUT_GITHUB-TOKEN` and `INPUT_API-KEY` hold credentials.
  const withoutInputs = Object.fromEntries(
    Object.entries(env).filter(([name]) => !name.startsWith("INPUT_")),
  );
  return {
    ...withoutInputs,
    ...(inputs.apiKey === undefined ? {} : { OPENAI_API_KEY: inputs.apiKey }),
    ...(inputs.baseUrl === undefined ? {} : { OPENAI_BASE_URL: inputs.baseUrl }),
    ...(inputs.model === undefined ? {} : { AGENTFORGE_MODEL: inputs.model }),
    // Runs and checkpoints live with the job, not in the runner user's home.
    AGENTFORGE_DATA_DIR: env["AGENTFORGE_DATA_DIR"] ?? dataDir,
  };
}
