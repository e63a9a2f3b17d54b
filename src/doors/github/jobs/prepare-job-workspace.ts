import { stat } from "node:fs/promises";
import type { WorkspaceRepository } from "../../../core/git/index.js";
import { createRunId } from "../../../core/persistence/index.js";
import { scopeCommandRunner } from "../../../core/tools/index.js";
import type { CommandRunner } from "../../../core/tools/index.js";
import type { Checkout } from "../workspace/create-repository-cache.js";
import { continueHandedOverRun } from "./continue-handed-over-run.js";
import type {
  JobAgent,
  JobGitHub,
  JobReport,
  JobWorkspaceDependencies,
  JobWorkspaceRecord,
  JobWorkspaceStore,
} from "./github-job.js";
import { removeRecordedCheckout, repositoryOfRecord } from "./job-workspace-record.js";

export interface JobWorkspace {
  readonly workspaceRoot: string;
  /** The checkout's git directory (out of the sandbox's reach) and what sandboxes show read-only. */
  readonly repository: WorkspaceRepository;
  /** Runs the job's own commands (setup, tests) with the checkout's git metadata read-only. */
  readonly commandRunner: CommandRunner;
  readonly baseSha: string;
  readonly remoteBranchSha: string | null;
  /** The agent run of this job, chosen (and recorded) before it starts, so a restarted worker finds it. */
  readonly runId: string;
  /** The run exists already (a dead worker's) and is continued rather than started. */
  readonly isResume: boolean;
  /** Removes the workspace and forgets the record; the repository cache stays. */
  cleanup(): Promise<void>;
}

export interface PrepareWorkspaceOptions {
  readonly cloneUrl: string;
  readonly ref: string;
  readonly branch?: string;
  readonly fetchRefs?: readonly string[];
  /** Commits the job diffs the checkout against (a review's base and `before`); see CheckoutOptions. */
  readonly diffBases?: readonly string[];
}

export interface PrepareWorkspaceDependencies {
  readonly workspace: JobWorkspaceDependencies;
  readonly agent: Pick<JobAgent, "runner" | "tracePath">;
  readonly github: Pick<JobGitHub, "getToken">;
  readonly report: Pick<JobReport, "log">;
  readonly signal: AbortSignal;
}

async function exists(target: string): Promise<boolean> {
  try {
    await stat(target);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}

/** A run that was checkpointed and did not finish, in the workspace the record names, is continued. */
async function isResumable(record: JobWorkspaceRecord, deps: PrepareWorkspaceDependencies): Promise<boolean> {
  if (record.runId === undefined || record.gitDirectory === undefined) return false;
  if (!(await exists(record.workspaceRoot)) || !(await exists(record.gitDirectory))) return false;
  const stored = await deps.agent.runner.inspect(record.runId);
  return (
    stored.kind === "stored" && stored.status !== "finished" && stored.workspaceRoot === record.workspaceRoot
  );
}

export function toJobWorkspace(
  deps: { readonly commandRunner: CommandRunner; readonly store?: JobWorkspaceStore | undefined },
  checkout: Pick<Checkout, "workspaceRoot" | "repository"> & { readonly cleanup: () => Promise<void> },
  state: Pick<JobWorkspace, "baseSha" | "remoteBranchSha" | "runId" | "isResume">,
): JobWorkspace {
  return {
    workspaceRoot: checkout.workspaceRoot,
    repository: checkout.repository,
    commandRunner: scopeCommandRunner(deps.commandRunner, {
      readOnlyPaths: checkout.repository.sandboxReadOnlyPaths,
    }),
    ...state,
    cleanup: async () => {
      await checkout.cleanup();
      await deps.store?.clear();
    },
  };
}

/**
 * The workspace of a job: the one a dead worker left, when its run can be resumed there; one
 * rebuilt from a run handed over by a worker on another machine; or a fresh checkout from the
 * repository cache. The record is saved before the agent starts, so a crash at any later point
 * leaves enough to continue.
 */
export async function prepareJobWorkspace(
  deps: PrepareWorkspaceDependencies,
  options: PrepareWorkspaceOptions,
): Promise<JobWorkspace> {
  const { store, handOver, cache, commandRunner } = deps.workspace;
  const tracePath = deps.agent.tracePath;
  const previous = store === undefined ? null : await store.load();
  if (previous === null && handOver !== undefined && store !== undefined && tracePath !== undefined) {
    if (handOver.branch === (options.branch ?? null)) {
      try {
        return await continueHandedOverRun(
          { ...deps, store, tracePath, commandRunner, cache },
          options,
          handOver,
        );
      } catch (error) {
        if (deps.signal.aborted) throw error;
        // The commit is gone, the changes no longer apply...: the work is redone rather than lost.
        deps.report.log?.(
          "the run handed over by another worker could not be continued here; starting over",
          {
            runId: handOver.run.runId,
            reason: error instanceof Error ? error.message : String(error),
          },
        );
        await store.clear();
      }
    }
  }
  if (
    previous !== null &&
    previous.branch === (options.branch ?? null) &&
    (await isResumable(previous, deps))
  ) {
    const repository = repositoryOfRecord(previous);
    if (repository !== null && previous.runId !== undefined)
      return toJobWorkspace(
        deps.workspace,
        {
          workspaceRoot: previous.workspaceRoot,
          repository,
          cleanup: () => removeRecordedCheckout(previous),
        },
        {
          baseSha: previous.baseSha,
          remoteBranchSha: previous.remoteBranchSha,
          runId: previous.runId,
          isResume: true,
        },
      );
  }
  if (previous !== null) await removeRecordedCheckout(previous);
  const checkout = await cache.checkout({
    cloneUrl: options.cloneUrl,
    token: await deps.github.getToken(),
    ref: options.ref,
    signal: deps.signal,
    ...(options.branch === undefined ? {} : { branch: options.branch }),
    ...(options.fetchRefs === undefined ? {} : { fetchRefs: options.fetchRefs }),
    ...(options.diffBases === undefined ? {} : { diffBases: options.diffBases }),
  });
  const runId = createRunId();
  if (store !== undefined && tracePath !== undefined) {
    await store.save({
      workspaceRoot: checkout.workspaceRoot,
      gitDirectory: checkout.repository.gitDirectory,
      readOnlyPaths: checkout.repository.sandboxReadOnlyPaths,
      baseSha: checkout.headSha,
      remoteBranchSha: checkout.remoteBranchSha,
      branch: options.branch ?? null,
      tracePath,
      runId,
    });
  }
  return toJobWorkspace(deps.workspace, checkout, {
    baseSha: checkout.headSha,
    remoteBranchSha: checkout.remoteBranchSha,
    runId,
    isResume: false,
  });
}
