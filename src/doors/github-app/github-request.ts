import { z } from "zod";

/** `… with <model>`: the person's choice, checked by the job; tasks queued before it existed have none. */
const model = z.string().min(1).optional();

const commandSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("fix"), instructions: z.string().optional(), model }),
  z.object({ kind: z.literal("plan"), instructions: z.string().optional(), model }),
  z.object({ kind: z.literal("review"), full: z.boolean().optional(), model }),
  z.object({ kind: z.literal("request"), text: z.string(), model }),
  /** `automatic`: started by a red suite on the bot's own pull request, not by a person. */
  z.object({ kind: z.literal("fix-ci"), automatic: z.boolean().optional(), model }),
]);

/**
 * The durable record of one piece of work, written by intake and read by a worker. It holds
 * identifiers only, never a token: the worker asks for a fresh installation token itself.
 */
export const githubRequestSchema = z.object({
  deliveryId: z.string().min(1),
  /** `issue_comment.created`, `pull_request.synchronize`, ... */
  eventName: z.string().min(1),
  installationId: z.number().int().positive(),
  owner: z.string().min(1),
  repo: z.string().min(1),
  /** The issue or pull request number. */
  number: z.number().int().positive(),
  isPullRequest: z.boolean(),
  command: commandSchema,
  trigger: z.enum([
    "comment",
    "review-comment",
    "label",
    "pull-request",
    "assignment",
    "review-request",
    "ci-failure",
  ]),
  requester: z.string().min(1),
  commentId: z.number().int().positive().nullable(),
  /** Known for pull request events; a worker resolves it for comments on pull requests. */
  headSha: z.string().nullable(),
  /** For `synchronize`: the head before the push, so only new commits are reviewed. */
  beforeSha: z.string().nullable(),
  /** For a comment on a diff line. */
  reviewComment: z.object({ path: z.string(), line: z.number().int().nullable() }).nullable(),
  receivedAt: z.number(),
});

export type GitHubRequest = z.output<typeof githubRequestSchema>;
export type RequestCommand = GitHubRequest["command"];

export function decodeGitHubRequest(value: unknown): GitHubRequest {
  return githubRequestSchema.parse(value);
}

/** The serialisation key: one running and one waiting task per issue or pull request. */
export function taskKeyOf(target: {
  readonly owner: string;
  readonly repo: string;
  readonly number: number;
}): string {
  return `${target.owner}/${target.repo}#${target.number}`.toLowerCase();
}
