import { open, rm, stat } from "node:fs/promises";
import path from "node:path";
import type { WorkspaceRepository } from "../../../core/git/workspace-repository.js";
import type { CheckpointStore } from "../../../core/persistence/create-checkpoint-store.js";
import { scopeCommandRunner } from "../../../core/tools/scope-command-runner.js";
import type { CommandRunner } from "../../../core/tools/tool.js";
import type { JobWorkspaceRecord } from "./github-job.js";
import type { GitHubJobDependencies } from "./github-job.js";
import type { CarriedRun } from "./carried-run.js";
import { applyWorkspaceChanges } from "../workspace/workspace-changes.js";

export interface JobWorkspace {
  readonly workspaceRoot: string;
  /** The checkout's git directory (out of the sandbox's reach) and what sandboxes show read-only. */
  readonly repository: WorkspaceRepository;
  /** Runs the job's own commands (setup, tests) with the checkout's git metadata read-only. */
  readonly commandRunner: CommandRunner;
  readonly baseSha: string;
  readonly remoteBranchSha: string | null;
  /** Set when a dead worker's run can be continued in this workspace. */
  readonly resumeRunId: string | null;
  /** Removes the workspace and forgets the record; the repository cache stays. */
  cleanup(): Promise<void>;
}

export interface PrepareWorkspaceOptions {
  readonly cloneUrl: string;
  readonly ref: string;
  readonly branch?: string;
  readonly fetchRefs?: readonly string[];
}

const HEADER_BYTES = 64 * 1024;

async function exists(target: string): Promise<boolean> {
  try {
    await stat(target);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}

/** The run id from a trace's header line; null when the file is missing or has no header yet. */
export async function readTraceRunId(tracePath: string): Promise<string | null> {
  if (!(await exists(tracePath))) return null;
  const handle = await open(tracePath, "r");
  try {
    const buffer = Buffer.alloc(HEADER_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEADER_BYTES, 0);
    const firstLine = buffer.subarray(0, bytesRead).toString("utf8").split("\n")[0] ?? "";
    const header = parseJsonObject(firstLine);
    const runId = header?.["run_id"];
    return header?.["record"] === "header" && typeof runId === "string" ? runId : null;
  } finally {
    await handle.close();
  }
}

function parseJsonObject(text: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : null;
  } catch (error) {
    // A header cut by a crash is the same as no header: the run starts over.
    if (error instanceof SyntaxError) return null;
    throw error;
  }
}

/** The record's repository, when it names one (records of older versions do not: they start over). */
function repositoryOf(record: JobWorkspaceRecord): WorkspaceRepository | null {
  if (record.gitDirectory === undefined) return null;
  return {
    gitDirectory: record.gitDirectory,
    workTree: record.workspaceRoot,
    sandboxReadOnlyPaths: record.readOnlyPaths ?? [
      record.gitDirectory,
      path.join(record.workspaceRoot, ".git"),
    ],
  };
}

/** A run that saved a checkpoint and did not finish can be continued; anything else starts over. */
async function resumableRunId(record: JobWorkspaceRecord, store: CheckpointStore): Promise<string | null> {
  if (!(await exists(record.workspaceRoot))) return null;
  if (record.gitDirectory === undefined || !(await exists(record.gitDirectory))) return null;
  const runId = record.runId ?? (await readTraceRunId(record.tracePath));
  if (runId === null) return null;
  // No checkpoint (the process died before the first one) or an unreadable one: start over.
  const checkpoint = await store.load(runId).catch((error: unknown) => {
    if (error instanceof Error) return null;
    throw error;
  });
  if (checkpoint === null || checkpoint.status === "finished") return null;
  return checkpoint.task.workspaceRoot === record.workspaceRoot ? runId : null;
}

/**
 * The workspace of a job: the one a dead worker left, when its run can be resumed there, or a
 * fresh checkout from the repository cache. The record is saved before the agent starts, so a
 * crash at any later point leaves enough to continue.
 */
export async function prepareJobWorkspace(
  deps: Pick<
    GitHubJobDependencies,
    | "cache"
    | "getToken"
    | "signal"
    | "workspaceStore"
    | "tracePath"
    | "runner"
    | "carriedRun"
    | "log"
    | "commandRunner"
  >,
  options: PrepareWorkspaceOptions,
): Promise<JobWorkspace> {
  const store = deps.workspaceStore;
  const previous = store === undefined ? null : await store.load();
  const carried = deps.carriedRun;
  if (
    previous === null &&
    carried !== undefined &&
    store !== undefined &&
    deps.tracePath !== undefined &&
    carried.branch === (options.branch ?? null)
  ) {
    try {
      return await continueCarriedRun(
        { ...deps, workspaceStore: store, tracePath: deps.tracePath },
        options,
        carried,
      );
    } catch (error) {
      if (deps.signal.aborted) throw error;
      // The commit is gone, the changes no longer apply...: the work is redone rather than lost.
      deps.log?.("the run carried from another worker could not be continued here; starting over", {
        runId: carried.runId,
        reason: error instanceof Error ? error.message : String(error),
      });
      await store.clear();
    }
  }
  if (previous !== null && previous.branch === (options.branch ?? null)) {
    const runId = await resumableRunId(previous, deps.runner.store);
    const repository = repositoryOf(previous);
    if (runId !== null && repository !== null) {
      return {
        workspaceRoot: previous.workspaceRoot,
        repository,
        commandRunner: scopeCommandRunner(deps.commandRunner, {
          readOnlyPaths: repository.sandboxReadOnlyPaths,
        }),
        baseSha: previous.baseSha,
        remoteBranchSha: previous.remoteBranchSha,
        resumeRunId: runId,
        cleanup: async () => {
          await removeCheckoutFolder(previous);
          await store?.clear();
        },
      };
    }
  }
  if (previous !== null) await removeCheckoutFolder(previous);
  if (previous !== null && deps.tracePath !== undefined) await rm(deps.tracePath, { force: true });
  const checkout = await deps.cache.checkout({
    cloneUrl: options.cloneUrl,
    token: await deps.getToken(),
    ref: options.ref,
    signal: deps.signal,
    ...(options.branch === undefined ? {} : { branch: options.branch }),
    ...(options.fetchRefs === undefined ? {} : { fetchRefs: options.fetchRefs }),
  });
  if (store !== undefined && deps.tracePath !== undefined) {
    await store.save({
      workspaceRoot: checkout.workspaceRoot,
      gitDirectory: checkout.repository.gitDirectory,
      readOnlyPaths: checkout.repository.sandboxReadOnlyPaths,
      baseSha: checkout.headSha,
      remoteBranchSha: checkout.remoteBranchSha,
      branch: options.branch ?? null,
      tracePath: deps.tracePath,
    });
  }
  return {
    workspaceRoot: checkout.workspaceRoot,
    repository: checkout.repository,
    commandRunner: scopeCommandRunner(deps.commandRunner, {
      readOnlyPaths: checkout.repository.sandboxReadOnlyPaths,
    }),
    baseSha: checkout.headSha,
    remoteBranchSha: checkout.remoteBranchSha,
    resumeRunId: null,
    cleanup: async () => {
      await checkout.cleanup();
      await store?.clear();
    },
  };
}

/**
 * Rebuilds, on this machine, the workspace of a run another worker started: a checkout of the
 * same commit with the captured changes applied, the run's checkpoint and started calls written to
 * this worker's store (pointing at the new workspace and trace), and the record that makes the run
 * resumable here. The run then continues exactly as after a local restart.
 */
async function continueCarriedRun(
  deps: Pick<GitHubJobDependencies, "cache" | "getToken" | "signal" | "runner" | "commandRunner"> & {
    readonly workspaceStore: NonNullable<GitHubJobDependencies["workspaceStore"]>;
    readonly tracePath: string;
  },
  options: PrepareWorkspaceOptions,
  carried: CarriedRun,
): Promise<JobWorkspace> {
  const checkout = await deps.cache.checkout({
    cloneUrl: options.cloneUrl,
    token: await deps.getToken(),
    ref: carried.changes.baseSha,
    signal: deps.signal,
    ...(options.branch === undefined ? {} : { branch: options.branch }),
    ...(options.fetchRefs === undefined ? {} : { fetchRefs: options.fetchRefs }),
  });
  try {
    await applyWorkspaceChanges(checkout.repository, carried.changes);
    const { runId, checkpoint } = carried;
    const store = deps.runner.store;
    await store.save(runId, {
      ...checkpoint,
      // Jobs always run under "never"; a stored value never loosens that, whatever Redis holds.
      task: {
        ...checkpoint.task,
        workspaceRoot: checkout.workspaceRoot,
        readOnlyPaths: checkout.repository.sandboxReadOnlyPaths,
        approvalMode: "never",
      },
      tracePath: deps.tracePath,
    });
    // Calls that had started and not completed stay "started": resume reports them as interrupted.
    for (const callId of carried.startedCallIds) {
      if (checkpoint.completedToolCalls[callId] === undefined) await store.markToolCallStarted(runId, callId);
    }
    await store.closeRun(runId);
    await deps.workspaceStore.save({
      workspaceRoot: checkout.workspaceRoot,
      gitDirectory: checkout.repository.gitDirectory,
      readOnlyPaths: checkout.repository.sandboxReadOnlyPaths,
      baseSha: carried.changes.baseSha,
      // The branch as it stood when the run began: the push is checked against that, not today's.
      remoteBranchSha: carried.remoteBranchSha,
      branch: carried.branch,
      tracePath: deps.tracePath,
      runId,
    });
  } catch (error) {
    await checkout.cleanup();
    throw error;
  }
  return {
    workspaceRoot: checkout.workspaceRoot,
    repository: checkout.repository,
    commandRunner: scopeCommandRunner(deps.commandRunner, {
      readOnlyPaths: checkout.repository.sandboxReadOnlyPaths,
    }),
    baseSha: carried.changes.baseSha,
    remoteBranchSha: carried.remoteBranchSha,
    resumeRunId: carried.runId,
    cleanup: async () => {
      await checkout.cleanup();
      await deps.workspaceStore.clear();
    },
  };
}

/**
 * A checkout made by the repository cache is one task folder holding `tree/` and `git/`; it goes
 * whole. Anything else a record names (an older version's work tree) goes part by part.
 */
async function removeCheckoutFolder(record: JobWorkspaceRecord): Promise<void> {
  const folder = path.dirname(record.workspaceRoot);
  if (record.gitDirectory === path.join(folder, "git") && path.basename(record.workspaceRoot) === "tree") {
    await rm(folder, { recursive: true, force: true });
    return;
  }
  await rm(record.workspaceRoot, { recursive: true, force: true });
  if (record.gitDirectory !== undefined) await rm(record.gitDirectory, { recursive: true, force: true });
}
