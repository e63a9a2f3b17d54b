import type { RepositoryConfigResult } from "./read-repository-config.js";
import { REPOSITORY_CONFIG_PATH } from "../github/repository-config.js";

/** The comment for a config that stops a run: every problem on its own line, naming its key. */
export function explainConfigProblem(result: Extract<RepositoryConfigResult, { success: false }>): string {
  if (result.error.kind === "unavailable") {
    const status = result.error.status === null ? "" : ` (GitHub answered ${result.error.status})`;
    return `I could not read \`${REPOSITORY_CONFIG_PATH}\`${status}, so I did not start. Please try again in a minute.`;
  }
  return [
    `I did not start: \`${REPOSITORY_CONFIG_PATH}\` on the default branch is not valid.`,
    "",
    ...result.error.problems.map((problem) => `- ${problem}`),
  ].join("\n");
}
