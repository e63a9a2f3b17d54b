import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { formatConfigIssues } from "../format-config-issues.js";
import { statusOf, type GitHubRequester } from "../pull-request/github-requester.js";
import {
  REPOSITORY_CONFIG_PATH,
  defaultRepositoryConfig,
  repositoryConfigSchema,
  type RepositoryConfig,
} from "../repository-config.js";

export interface JobRepository {
  readonly defaultBranch: string;
  /** The plain https clone URL; the token never goes into it. */
  readonly cloneUrl: string;
  readonly fullName: string;
}

const repositorySchema = z
  .object({ default_branch: z.string().min(1), clone_url: z.string().min(1), full_name: z.string() })
  .loose();

export async function readJobRepository(
  octokit: GitHubRequester,
  target: { readonly owner: string; readonly repo: string },
): Promise<JobRepository> {
  const response = await octokit.request("GET /repos/{owner}/{repo}", target);
  const data = repositorySchema.parse(response.data);
  return { defaultBranch: data.default_branch, cloneUrl: data.clone_url, fullName: data.full_name };
}

export type JobConfigResult =
  | { readonly success: true; readonly value: RepositoryConfig }
  | { readonly success: false; readonly error: string };

const contentSchema = z.object({ content: z.string(), encoding: z.string() }).loose();

/**
 * The one reader of `.github/agentforge.yml` for jobs, used by the App's workers and the Action
 * alike: the contents API at the default branch, named explicitly, so a pull request head (or a
 * workflow running on one) can never supply the config that judges it. A missing file means the
 * defaults. The App's intake also reads the file early (through Probot's loader, which asks for
 * the default branch too) only to refuse a bad config before queuing; the job reads it again
 * because it may have changed while the task waited.
 */
export async function readJobConfig(
  octokit: GitHubRequester,
  target: { readonly owner: string; readonly repo: string; readonly defaultBranch: string },
): Promise<JobConfigResult> {
  let raw: unknown;
  try {
    const response = await octokit.request("GET /repos/{owner}/{repo}/contents/{path}", {
      owner: target.owner,
      repo: target.repo,
      path: REPOSITORY_CONFIG_PATH,
      ref: target.defaultBranch,
    });
    const file = contentSchema.safeParse(response.data);
    if (!file.success || file.data.encoding !== "base64")
      return { success: false, error: `\`${REPOSITORY_CONFIG_PATH}\` is not a file` };
    raw = parseYaml(Buffer.from(file.data.content, "base64").toString("utf8"));
  } catch (error) {
    if (statusOf(error) === 404) return { success: true, value: defaultRepositoryConfig() };
    if (statusOf(error) !== undefined) throw error;
    return {
      success: false,
      error: `\`${REPOSITORY_CONFIG_PATH}\`: expected valid YAML, got text that does not parse — edit it on the default branch`,
    };
  }
  if (raw === null || raw === undefined) return { success: true, value: defaultRepositoryConfig() };
  const parsed = repositoryConfigSchema.safeParse(raw, { reportInput: true });
  if (!parsed.success) return { success: false, error: formatConfigIssues(parsed.error.issues).join("\n") };
  return { success: true, value: parsed.data };
}
