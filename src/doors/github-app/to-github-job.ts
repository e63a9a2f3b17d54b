import type { GitHubJob } from "../github/jobs/github-job.js";
import { fixRequestOnPullRequest } from "../github/commands/fix-on-pull-request.js";
import type { GitHubRequest } from "./github-request.js";

/** The request says what was asked; the job says what to do. */
export function toGitHubJob(task: GitHubRequest): GitHubJob {
  const base = {
    owner: task.owner,
    repo: task.repo,
    number: task.number,
    isPullRequest: task.isPullRequest,
    requester: task.requester,
    ...(task.headSha === null ? {} : { headSha: task.headSha }),
    ...(task.beforeSha === null ? {} : { beforeSha: task.beforeSha }),
    ...(task.commentId === null ? {} : { commentId: task.commentId }),
    ...(task.trigger === "review-comment" && task.reviewComment !== null
      ? { thread: task.reviewComment }
      : {}),
  };
  const command = task.command;
  const chosen = command.model === undefined ? {} : { model: command.model };
  switch (command.kind) {
    case "fix":
      if (task.isPullRequest)
        return {
          ...base,
          kind: "request",
          instructions: fixRequestOnPullRequest(command.instructions),
          ...chosen,
        };
      return {
        ...base,
        kind: command.kind,
        ...(command.instructions === undefined ? {} : { instructions: command.instructions }),
        ...chosen,
      };
    case "plan":
      return {
        ...base,
        kind: command.kind,
        ...(command.instructions === undefined ? {} : { instructions: command.instructions }),
        ...chosen,
      };
    case "review":
      return { ...base, kind: "review", ...(command.full === true ? { fullReview: true } : {}), ...chosen };
    case "request":
      return { ...base, kind: "request", instructions: command.text, ...chosen };
    case "fix-ci":
      return {
        ...base,
        kind: "fix-ci",
        ...(command.automatic === true ? { automatic: true } : {}),
        ...chosen,
      };
  }
}
