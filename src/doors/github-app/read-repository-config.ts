import type { Context } from "probot";
import { formatConfigIssues } from "../github/format-config-issues.js";
import {
  REPOSITORY_CONFIG_FILE,
  REPOSITORY_CONFIG_PATH,
  repositoryConfigSchema,
  type RepositoryConfig,
} from "../github/repository-config.js";

export type RepositoryConfigResult =
  | { readonly success: true; readonly value: RepositoryConfig; readonly isDefault: boolean }
  | {
      readonly success: false;
      readonly error:
        | { readonly kind: "invalid"; readonly problems: readonly string[] }
        | { readonly kind: "unavailable"; readonly status: number | null; readonly cause: unknown };
    };

function statusOf(error: unknown): number | null {
  if (typeof error === "object" && error !== null && "status" in error && typeof error.status === "number") {
    return error.status;
  }
  return null;
}

/**
 * Reads `.github/agentforge.yml` through Probot's loader. `context.config` passes no ref, so
 * GitHub answers from the default branch: a pull request cannot change the config that judges
 * it. A missing file gives the defaults; an invalid one gives problems that name their key.
 */
export async function readRepositoryConfig(
  context: Pick<Context, "config">,
): Promise<RepositoryConfigResult> {
  let raw: unknown;
  try {
    raw = await context.config(REPOSITORY_CONFIG_FILE);
  } catch (error) {
    const status = statusOf(error);
    // The loader throws plain errors for YAML it cannot parse and request errors (with a status) otherwise.
    if (status === null) {
      return {
        success: false,
        error: {
          kind: "invalid",
          problems: [
            `\`${REPOSITORY_CONFIG_PATH}\`: expected valid YAML (a mapping of keys), got text that does not parse — edit ${REPOSITORY_CONFIG_PATH} on the default branch`,
          ],
        },
      };
    }
    return { success: false, error: { kind: "unavailable", status, cause: error } };
  }
  if (raw === null) return { success: true, value: repositoryConfigSchema.parse({}), isDefault: true };
  const parsed = repositoryConfigSchema.safeParse(raw, { reportInput: true });
  if (!parsed.success)
    return { success: false, error: { kind: "invalid", problems: formatConfigIssues(parsed.error.issues) } };
  return { success: true, value: parsed.data, isDefault: false };
}
