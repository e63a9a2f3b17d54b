import { standInPayload, type Payload } from "./conversation-payloads.js";

interface RedRun {
  readonly pullNumber: number;
  readonly headSha: string;
  readonly headRef: string;
  readonly conclusion?: string;
  readonly sender?: string;
}

function pullRequestRef(payload: Payload, run: RedRun): Payload {
  const repositoryId = payload["repository"]["id"] as number;
  return {
    number: run.pullNumber,
    head: { ref: run.headRef, sha: run.headSha, repo: { id: repositoryId, name: "demo" } },
    base: { ref: "main", sha: "0".repeat(40), repo: { id: repositoryId, name: "demo" } },
  };
}

/** A real `check_suite.completed` payload: GitHub Actions' suite on a stand-in pull request's head. */
export function checkSuiteCompletedPayload(run: RedRun): Payload {
  const payload = standInPayload("check_suite", "completed", run.sender ?? "Codertocat");
  payload["check_suite"] = {
    ...payload["check_suite"],
    head_branch: run.headRef,
    head_sha: run.headSha,
    status: "completed",
    conclusion: run.conclusion ?? "failure",
    app: { ...(payload["check_suite"]["app"] ?? {}), slug: "github-actions", name: "GitHub Actions" },
    pull_requests: [pullRequestRef(payload, run)],
  };
  return payload;
}

/** A real `workflow_run.completed` payload: the CI workflow on a stand-in pull request's head. */
export function workflowRunCompletedPayload(run: RedRun): Payload {
  const payload = standInPayload("workflow_run", "completed", run.sender ?? "Codertocat");
  payload["workflow_run"] = {
    ...payload["workflow_run"],
    name: "CI",
    event: "pull_request",
    head_branch: run.headRef,
    head_sha: run.headSha,
    status: "completed",
    conclusion: run.conclusion ?? "failure",
    pull_requests: [pullRequestRef(payload, run)],
  };
  return payload;
}
