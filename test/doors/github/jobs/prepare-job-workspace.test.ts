import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { CheckpointStore } from "../../../../src/core/persistence/create-checkpoint-store.js";
import type { RunCheckpoint } from "../../../../src/core/persistence/run-checkpoint.js";
import type { JobDependencies } from "../../../../src/doors/github/jobs/github-job.js";
import { prepareJobWorkspace } from "../../../../src/doors/github/jobs/prepare-job-workspace.js";
import { openJobRecordStore } from "../../../../src/doors/github/jobs/job-record-store.js";
import type { HandOver } from "../../../../src/doors/github/jobs/hand-over.js";
import { inspectStoredRun } from "../../../../src/core/run/hand-over-run.js";
import { PersistenceError } from "../../../../src/core/persistence/persistence-error.js";
import type { RepositoryCache } from "../../../../src/doors/github/workspace/create-repository-cache.js";

describe("prepareJobWorkspace", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "agentforge-prepare-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** A cache that records checkouts and makes an empty folder for each. */
  function fakeCache(): RepositoryCache & { checkouts: number } {
    const cache = {
      checkouts: 0,
      removeLeftovers: () => Promise.resolve(0),
      settled: () => Promise.resolve(),
      close: () => Promise.resolve(),
      async checkout() {
        cache.checkouts += 1;
        const root = path.join(dir, `fresh-${cache.checkouts}`);
        await mkdir(root);
        return {
          workspaceRoot: root,
          repository: { gitDirectory: `${root}.git`, workTree: root, sandboxReadOnlyPaths: [] },
          headSha: "a".repeat(40),
          remoteBranchSha: null,
          cacheState: "cold" as const,
          treeSource: "written" as const,
          cleanup: () => rm(root, { recursive: true, force: true }),
        };
      },
    };
    return cache;
  }

  function storeWith(checkpoint: Partial<RunCheckpoint> | null): CheckpointStore {
    return {
      load: (runId: string) =>
        checkpoint === null
          ? Promise.reject(new PersistenceError("NOT_FOUND", `no checkpoint for ${runId}`))
          : Promise.resolve(checkpoint as RunCheckpoint),
    } as unknown as CheckpointStore;
  }

  async function deps(checkpoint: Partial<RunCheckpoint> | null) {
    const record = openJobRecordStore(dir, "task-1");
    const cache = fakeCache();
    const value = {
      workspace: {
        cache,
        store: record.workspaceStore,
        commandRunner: {
          run: () => Promise.reject(new Error("no command runs while a workspace is prepared")),
        },
      },
      agent: {
        runner: {
          inspect: (runId: string) => inspectStoredRun(storeWith(checkpoint), runId),
          importRun: () => Promise.resolve(),
        } as unknown as JobDependencies["agent"]["runner"],
        tracePath: record.tracePath,
      },
      github: { getToken: () => Promise.resolve("t") },
      report: {},
      signal: new AbortController().signal,
    } satisfies Parameters<typeof prepareJobWorkspace>[0];
    return { value, record, cache };
  }

  async function leaveWorkspaceOfDeadWorker(
    record: ReturnType<typeof openJobRecordStore>,
    runId: string | null,
  ): Promise<string> {
    const root = path.join(dir, "left");
    await mkdir(root);
    await mkdir(`${root}.git`);
    await record.workspaceStore.save({
      workspaceRoot: root,
      gitDirectory: `${root}.git`,
      baseSha: "b".repeat(40),
      remoteBranchSha: null,
      branch: "agentforge/issue-1",
      tracePath: record.tracePath,
      ...(runId === null ? {} : { runId }),
    });
    return root;
  }

  it("resumes the run a dead worker left when its workspace and checkpoint are there", async () => {
    const root = path.join(dir, "left");
    const { value, record, cache } = await deps({
      status: "running",
      task: { workspaceRoot: root } as RunCheckpoint["task"],
    });
    await leaveWorkspaceOfDeadWorker(record, "run-7");
    const workspace = await prepareJobWorkspace(value, {
      cloneUrl: "https://example.com/o/r.git",
      ref: "main",
      branch: "agentforge/issue-1",
    });
    expect(workspace).toMatchObject({ runId: "run-7", isResume: true });
    expect(workspace.workspaceRoot).toBe(root);
    expect(workspace.baseSha).toBe("b".repeat(40));
    expect(cache.checkouts).toBe(0);
    await workspace.cleanup();
    expect(existsSync(root)).toBe(false);
    expect(await record.workspaceStore.load()).toBeNull();
  });

  it("starts over in a fresh checkout when a run carried from another worker cannot be rebuilt here", async () => {
    const { value, record, cache } = await deps(null);
    const notes: string[] = [];
    // The fake cache makes plain folders, not git checkouts: applying the changes must fail.
    const handOver: HandOver = {
      version: 2,
      run: {
        version: 1,
        runId: "run-far",
        checkpoint: { runId: "run-far" } as RunCheckpoint,
        startedCallIds: [],
      },
      changes: { baseSha: "c".repeat(40), trackedPatchBase64: "", untracked: [] },
      branch: "agentforge/issue-1",
      remoteBranchSha: null,
      progressCommentId: null,
      capturedAt: new Date().toISOString(),
    };
    const workspace = await prepareJobWorkspace(
      {
        ...value,
        workspace: { ...value.workspace, handOver },
        report: { log: (message: string) => void notes.push(message) },
      },
      { cloneUrl: "https://example.com/o/r.git", ref: "main", branch: "agentforge/issue-1" },
    );
    expect(workspace.isResume).toBe(false);
    // One checkout for the attempt (removed again), one fresh.
    expect(cache.checkouts).toBe(2);
    expect(existsSync(path.join(dir, "fresh-1"))).toBe(false);
    expect(workspace.workspaceRoot).toBe(path.join(dir, "fresh-2"));
    expect(notes).toEqual([
      "the run handed over by another worker could not be continued here; starting over",
    ]);
    expect((await record.workspaceStore.load())?.workspaceRoot).toBe(workspace.workspaceRoot);
  });

  it("starts over in a fresh checkout when the run never saved a checkpoint", async () => {
    const { value, record, cache } = await deps(null);
    const left = await leaveWorkspaceOfDeadWorker(record, "run-8");
    const workspace = await prepareJobWorkspace(value, {
      cloneUrl: "https://example.com/o/r.git",
      ref: "main",
      branch: "agentforge/issue-1",
    });
    expect(workspace.isResume).toBe(false);
    expect(cache.checkouts).toBe(1);
    expect(existsSync(left)).toBe(false);
    expect((await record.workspaceStore.load())?.workspaceRoot).toBe(workspace.workspaceRoot);
  });

  it("starts over when the run already finished", async () => {
    const root = path.join(dir, "left");
    const { value, record, cache } = await deps({
      status: "finished",
      task: { workspaceRoot: root } as RunCheckpoint["task"],
    });
    await leaveWorkspaceOfDeadWorker(record, "run-9");
    const workspace = await prepareJobWorkspace(value, {
      cloneUrl: "https://example.com/o/r.git",
      ref: "main",
      branch: "agentforge/issue-1",
    });
    expect(workspace.isResume).toBe(false);
    expect(cache.checkouts).toBe(1);
  });

  it("starts over when the record names no run (written by an older version)", async () => {
    const root = path.join(dir, "left");
    const { value, cache } = await deps({
      status: "running",
      task: { workspaceRoot: root } as RunCheckpoint["task"],
    });
    const { record } = await deps(null);
    await leaveWorkspaceOfDeadWorker(record, null);
    const workspace = await prepareJobWorkspace(
      { ...value, workspace: { ...value.workspace, store: record.workspaceStore } },
      { cloneUrl: "https://example.com/o/r.git", ref: "main", branch: "agentforge/issue-1" },
    );
    expect(workspace.isResume).toBe(false);
    expect(cache.checkouts).toBe(1);
  });
});
