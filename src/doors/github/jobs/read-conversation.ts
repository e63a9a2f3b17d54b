import { z } from "zod";
import type { UntrustedInput } from "../../../core/agent-run.js";
import { cleanGitHubText } from "../../../core/safety/index.js";
import type { GitHubRequester } from "../pull-request/github-requester.js";

const userSchema = z.object({ login: z.string(), type: z.string().optional() }).loose();
const issueSchema = z
  .object({
    number: z.number().int(),
    title: z.string(),
    body: z.string().nullable().optional(),
    user: userSchema.nullable(),
  })
  .loose();
const commentsSchema = z.array(
  z.object({ id: z.number(), body: z.string().nullable().optional(), user: userSchema.nullable() }).loose(),
);

export interface Conversation {
  /** For commit messages and pull request titles; in the prompt only when the requester wrote it. */
  readonly title: string;
  readonly isOpenedByRequester: boolean;
  /** What the requester wrote (the issue body when they opened it, and their comments). */
  readonly requestText: string;
  /** What everyone else wrote, cleaned; the core fences it as data. */
  readonly untrustedInputs: readonly UntrustedInput[];
}

const MAX_PAGES = 10;
const PAGE_SIZE = 100;
/** Each piece of outside text is capped: a long thread must not crowd out the task. */
const MAX_INPUT_CHARS = 20_000;

function clean(text: string): string {
  const cleaned = cleanGitHubText(text).text;
  return cleaned.length > MAX_INPUT_CHARS ? `${cleaned.slice(0, MAX_INPUT_CHARS)}\n…(cut)` : cleaned;
}

function isBot(user: z.output<typeof userSchema> | null): boolean {
  return user === null || user.type === "Bot" || user.login.toLowerCase().endsWith("[bot]");
}

/**
 * Reads an issue (or a pull request's conversation) and sorts its text by who wrote it. Only the
 * requester, whose write access the door checked, gives instructions; everyone else's words are
 * data. Bots, this app included, are left out: their text is built from other people's input.
 */
export async function readConversation(
  octokit: GitHubRequester,
  target: {
    readonly owner: string;
    readonly repo: string;
    readonly number: number;
    readonly requester: string;
  },
): Promise<Conversation> {
  const { owner, repo, number } = target;
  const issue = issueSchema.parse(
    (
      await octokit.request("GET /repos/{owner}/{repo}/issues/{issue_number}", {
        owner,
        repo,
        issue_number: number,
      })
    ).data,
  );
  const requester = target.requester.toLowerCase();
  const fromRequester: string[] = [];
  const untrusted: UntrustedInput[] = [];
  const body = issue.body ?? "";
  const isOpenedByRequester = issue.user?.login.toLowerCase() === requester;
  if (isOpenedByRequester) fromRequester.push(clean(`${issue.title}\n\n${body}`));
  else if (!isBot(issue.user))
    untrusted.push({
      source: `github:issue #${number} by @${issue.user?.login ?? "unknown"}`,
      text: clean(`${issue.title}\n\n${body}`),
    });
  for (let page = 1; page <= MAX_PAGES; page += 1) {
    const response = await octokit.request("GET /repos/{owner}/{repo}/issues/{issue_number}/comments", {
      owner,
      repo,
      issue_number: number,
      per_page: PAGE_SIZE,
      page,
    });
    const comments = commentsSchema.parse(response.data);
    for (const comment of comments) {
      const text = comment.body ?? "";
      if (text.trim().length === 0 || isBot(comment.user)) continue;
      if (comment.user?.login.toLowerCase() === requester) fromRequester.push(clean(text));
      else
        untrusted.push({
          source: `github:comment ${comment.id} by @${comment.user?.login ?? "unknown"}`,
          text: clean(text),
        });
    }
    if (comments.length < PAGE_SIZE) break;
  }
  return {
    title: cleanGitHubText(issue.title).text,
    isOpenedByRequester,
    requestText: fromRequester.join("\n\n---\n\n"),
    untrustedInputs: untrusted,
  };
}
