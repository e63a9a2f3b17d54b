import type { GitHubRequester } from "./pull-request/github-requester.js";

export interface RepositoryRef {
  readonly owner: string;
  readonly repo: string;
}

/** Where a command came from, so the answer goes back to the same place. */
export type CommandSource =
  | (RepositoryRef & {
      readonly kind: "issue-comment";
      readonly issueNumber: number;
      readonly commentId: number;
    })
  | (RepositoryRef & {
      readonly kind: "review-comment";
      readonly pullNumber: number;
      readonly commentId: number;
    })
  | (RepositoryRef & { readonly kind: "issue"; readonly issueNumber: number });

type Requester = GitHubRequester;

/** The 👀 acknowledgement. GitHub answers 200 for a reaction that already exists, so a retry is harmless. */
export async function addEyesReaction(octokit: Requester, source: CommandSource): Promise<void> {
  const base = { owner: source.owner, repo: source.repo, content: "eyes" as const };
  switch (source.kind) {
    case "issue-comment":
      await octokit.request("POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions", {
        ...base,
        comment_id: source.commentId,
      });
      return;
    case "review-comment":
      await octokit.request("POST /repos/{owner}/{repo}/pulls/comments/{comment_id}/reactions", {
        ...base,
        comment_id: source.commentId,
      });
      return;
    case "issue":
      await octokit.request("POST /repos/{owner}/{repo}/issues/{issue_number}/reactions", {
        ...base,
        issue_number: source.issueNumber,
      });
      return;
  }
}

/** Answers in the conversation the command came from: a review thread gets a threaded reply. */
export async function postReply(
  octokit: Requester,
  source: CommandSource,
  body: string,
  redact: (text: string) => string,
): Promise<void> {
  const text = redact(body);
  if (source.kind === "review-comment") {
    await octokit.request("POST /repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies", {
      owner: source.owner,
      repo: source.repo,
      pull_number: source.pullNumber,
      comment_id: source.commentId,
      body: text,
    });
    return;
  }
  await octokit.request("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", {
    owner: source.owner,
    repo: source.repo,
    issue_number: source.issueNumber,
    body: text,
  });
}
