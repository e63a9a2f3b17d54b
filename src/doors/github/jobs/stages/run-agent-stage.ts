import { settleWorkspaceIndex } from "../../../../core/git/index.js";
import type { RunResult, RunInput } from "../../../../core/agent-run.js";
import type { JobAgent } from "../github-job.js";
import type { JobWorkspace } from "../prepare-job-workspace.js";
import type { RunProgressTracker } from "../track-run-progress.js";

/** What a job asks of the agent; the stage adds where, under which approval, and the run's id. */
export type JobRunRequest = Omit<
  RunInput,
  "approvalMode" | "workspaceRoot" | "readOnlyPaths" | "signal" | "tracePath"
>;

/**
 * Runs the agent for a job, or continues the run a dead worker left in this workspace. Approval
 * is always `never` here: there is nobody to ask, so only allow-listed commands run.
 */
export async function runAgentStage(
  agent: Pick<JobAgent, "runner" | "tracePath">,
  workspace: Pick<JobWorkspace, "workspaceRoot" | "repository" | "runId" | "isResume">,
  request: JobRunRequest,
  tracker: RunProgressTracker,
  signal: AbortSignal,
): Promise<RunResult> {
  // The agent's git commands read the index read-only: written again now, it stays cheap for them.
  // Writing it waits for the next second (up to one): a fresh run is asked of the model meanwhile,
  // and its tools wait for the index (host git must not read what the run has begun to change).
  const settling = settleWorkspaceIndex(workspace.repository, { signal });
  if (workspace.isResume) {
    await settling;
    tracker.note("resuming the run a stopped worker left");
    return agent.runner.resume(workspace.runId, { onEvent: tracker.onEvent, signal });
  }
  const settled = settling.then(
    () => null,
    (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
  );
  const result = await agent.runner.run(
    {
      ...request,
      approvalMode: "never",
      workspaceRoot: workspace.workspaceRoot,
      readOnlyPaths: workspace.repository.sandboxReadOnlyPaths,
      signal,
      ...(agent.tracePath === undefined ? {} : { tracePath: agent.tracePath }),
    },
    { runId: workspace.runId, onEvent: tracker.onEvent, workspaceReady: settling },
  );
  // A failed settle is the job's error, as when it ran before the run: not the run's "error" end.
  const failure = await settled;
  if (failure !== null) throw failure;
  return result;
}

/** Run endings after which nothing is published: the person is told what failed. */
export function isFailedRun(result: Pick<RunResult, "exitReason">): boolean {
  return (
    result.exitReason === "cancelled" || result.exitReason === "model_error" || result.exitReason === "error"
  );
}

/** The allowlist of a job: the repository's commands plus the door's (the runner adds the operator's). */
export function jobAllowPrefixes(
  config: { readonly allowed_commands: readonly string[]; readonly test_commands: readonly string[] },
  extraAllowPrefixes: readonly string[],
): string[] {
  return [...new Set([...config.allowed_commands, ...config.test_commands, ...extraAllowPrefixes])];
}
