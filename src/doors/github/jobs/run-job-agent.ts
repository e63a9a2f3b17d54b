import type { AgentRunResult, AgentTask } from "../../../core/agent-run.js";
import type { GitHubJobDependencies } from "./github-job.js";
import type { JobWorkspace } from "./prepare-job-workspace.js";
import type { RunProgressTracker } from "./track-run-progress.js";

/**
 * Runs the agent for a job, or continues the run a dead worker left in this workspace. Approval
 * is always `never` here: there is nobody to ask, so only allow-listed commands run.
 */
export async function runJobAgent(
  deps: Pick<GitHubJobDependencies, "runner" | "signal" | "tracePath">,
  workspace: JobWorkspace,
  task: Omit<AgentTask, "approvalMode" | "workspaceRoot" | "readOnlyPaths" | "signal" | "tracePath">,
  tracker: RunProgressTracker,
): Promise<AgentRunResult> {
  if (workspace.resumeRunId !== null) {
    tracker.note("resuming the run a stopped worker left");
    return deps.runner.resume(workspace.resumeRunId, { onEvent: tracker.onEvent, signal: deps.signal });
  }
  return deps.runner.run(
    {
      ...task,
      approvalMode: "never",
      workspaceRoot: workspace.workspaceRoot,
      readOnlyPaths: workspace.repository.sandboxReadOnlyPaths,
      signal: deps.signal,
      ...(deps.tracePath === undefined ? {} : { tracePath: deps.tracePath }),
    },
    { onEvent: tracker.onEvent },
  );
}

/** The allowlist of a job: the repository's commands plus the operator's. */
export function jobAllowPrefixes(
  config: { readonly allowed_commands: readonly string[]; readonly test_commands: readonly string[] },
  operatorAllowPrefixes: readonly string[],
): string[] {
  return [...new Set([...config.allowed_commands, ...config.test_commands, ...operatorAllowPrefixes])];
}
