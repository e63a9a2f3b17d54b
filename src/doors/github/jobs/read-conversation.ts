import { z } from "zod";
import type { UntrustedInput } from "../../../core/agent-run.js";
import { cleanGitHubText } from "../../../core/safety/index.js";
import type { GitHubRequester } from "../pull-request/github-requester.js";
import { createWriterCheck, type WriterCheck } from "./create-writer-check.js";

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
  z
    .object({
      id: z.number(),
      body: z.string().nullable().optional(),
      user: userSchema.nullable(),
      author_association: z.string().optional(),
    })
    .loose(),
);

export interface Conversation {
  /** For commit messages and pull request titles; in the prompt only when the requester wrote it. */
  readonly title: string;
  readonly isOpenedByRequester: boolean;
  /** What the requester wrote (the issue body when they opened it, and their comments). */
  readonly requestText: string;
  /**
   * What others with write access wrote (and the issue itself), cleaned; the core fences it as
   * data. The last entry says how many comments were left out, when any were.
   */
  readonly untrustedInputs: readonly UntrustedInput[];
  /** Comments left out: by people without write access, and by bots not allowed. */
  readonly leftOut: { readonly withoutWriteAccess: number; readonly bots: number };
}

export interface ConversationOptions {
  /** Bot logins whose comments are read (e.g. `ci-reporter[bot]`); every other bot is left out. */
  readonly allowedBots?: readonly string[];
  /** Default: the collaborator-permission lookup, once per login. */
  readonly isWriter?: WriterCheck;
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
 * requester, whose write access the door checked, gives instructions. The issue itself is data
 * whoever wrote it (it is what is to be fixed); a comment is read, as data, only when its author
 * may write to the repository: a stranger's comment cannot steer the run, even fenced. Bots, this
 * app included, are left out unless allowed: their text is built from other people's input.
 */
export async function readConversation(
  octokit: GitHubRequester,
  target: {
    readonly owner: string;
    readonly repo: string;
    readonly number: number;
    readonly requester: string;
  },
  options: ConversationOptions = {},
): Promise<Conversation> {
  const { owner, repo, number } = target;
  const isWriter = options.isWriter ?? createWriterCheck(octokit, { owner, repo });
  const allowedBots = new Set((options.allowedBots ?? []).map((login) => login.toLowerCase()));
  const leftOut = { withoutWriteAccess: 0, bots: 0 };
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
      if (text.trim().length === 0) continue;
      const login = comment.user?.login.toLowerCase();
      if (login === requester) {
        fromRequester.push(clean(text));
        continue;
      }
      if (comment.user === null || isBot(comment.user)) {
        if (login === undefined || !allowedBots.has(login)) {
          leftOut.bots += 1;
          continue;
        }
      } else if (!(await isWriter(comment.user.login, comment.author_association))) {
        leftOut.withoutWriteAccess += 1;
        continue;
      }
      untrusted.push({
        source: `github:comment ${comment.id} by @${comment.user?.login ?? "unknown"}`,
        text: clean(text),
      });
    }
    if (comments.length < PAGE_SIZE) break;
  }
  const note = describeLeftOut(leftOut);
  if (note !== null) untrusted.push({ source: "agentforge:left-out", text: note });
  return {
    title: cleanGitHubText(issue.title).text,
    isOpenedByRequester,
    requestText: fromRequester.join("\n\n---\n\n"),
    untrustedInputs: untrusted,
    leftOut,
  };
}

/** The note the model reads about comments it does not see, or null when none were left out. */
export function describeLeftOut(leftOut: Conversation["leftOut"]): string | null {
  const parts: string[] = [];
  const plural = (count: number): string => (count === 1 ? "comment" : "comments");
  if (leftOut.withoutWriteAccess > 0)
    parts.push(
      `${leftOut.withoutWriteAccess} ${plural(leftOut.withoutWriteAccess)} by people without write access`,
    );
  if (leftOut.bots > 0) parts.push(`${leftOut.bots} ${plural(leftOut.bots)} by bots`);
  return parts.length === 0 ? null : `Left out of this conversation: ${parts.join(" and ")}.`;
}
