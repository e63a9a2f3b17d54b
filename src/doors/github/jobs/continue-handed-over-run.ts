import type { CommandRunner } from "../../../core/tools/index.js";
import type { RepositoryCache } from "../workspace/create-repository-cache.js";
import { applyWorkspaceChanges } from "../workspace/workspace-changes.js";
import type { JobAgent, JobGitHub, JobWorkspaceStore } from "./github-job.js";
import type { HandOver } from "./hand-over.js";
import { toJobWorkspace, type JobWorkspace, type PrepareWorkspaceOptions } from "./prepare-job-workspace.js";

export interface ContinueHandedOverRunDependencies {
  readonly cache: RepositoryCache;
  readonly commandRunner: CommandRunner;
  readonly store: JobWorkspaceStore;
  readonly tracePath: string;
  readonly agent: Pick<JobAgent, "runner">;
  readonly github: Pick<JobGitHub, "getToken">;
  readonly signal: AbortSignal;
}

/**
 * Rebuilds, on this machine, the workspace of a run another worker started: a checkout of the
 * same commit with the handed-over changes applied, the run imported into this worker's core
 * (pointing at the new workspace and trace, under approval `never` whatever was stored), and the
 * record that makes the run resumable here. The run then continues exactly as after a local
 * restart.
 */
export async function continueHandedOverRun(
  deps: ContinueHandedOverRunDependencies,
  options: PrepareWorkspaceOptions,
  handOver: HandOver,
): Promise<JobWorkspace> {
  const checkout = await deps.cache.checkout({
    cloneUrl: options.cloneUrl,
    token: await deps.github.getToken(),
    ref: handOver.changes.baseSha,
    signal: deps.signal,
    ...(options.branch === undefined ? {} : { branch: options.branch }),
    ...(options.fetchRefs === undefined ? {} : { fetchRefs: options.fetchRefs }),
  });
  const runId = handOver.run.runId;
  try {
    await applyWorkspaceChanges(checkout.repository, handOver.changes);
    await deps.agent.runner.importRun(handOver.run, {
      workspaceRoot: checkout.workspaceRoot,
      readOnlyPaths: checkout.repository.sandboxReadOnlyPaths,
      tracePath: deps.tracePath,
      approvalMode: "never",
    });
    await deps.store.save({
      workspaceRoot: checkout.workspaceRoot,
      gitDirectory: checkout.repository.gitDirectory,
      readOnlyPaths: checkout.repository.sandboxReadOnlyPaths,
      baseSha: handOver.changes.baseSha,
      // The branch as it stood when the run began: the push is checked against that, not today's.
      remoteBranchSha: handOver.remoteBranchSha,
      branch: handOver.branch,
      tracePath: deps.tracePath,
      runId,
    });
  } catch (error) {
    await checkout.cleanup();
    throw error;
  }
  return toJobWorkspace(deps, checkout, {
    baseSha: handOver.changes.baseSha,
    remoteBranchSha: handOver.remoteBranchSha,
    runId,
    isResume: true,
  });
}
