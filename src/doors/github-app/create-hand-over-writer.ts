import type { AgentRunner } from "../../core/agent-run.js";
import type { LoopEvent } from "../../core/loop/index.js";
import type { JsonValue } from "../../queue/task-queue.js";
import type { HandOver } from "../github/jobs/hand-over.js";
import type { JobRecordStore } from "../github/jobs/job-record-store.js";
import { captureWorkspaceChanges } from "../github/workspace/workspace-changes.js";
import type { DoorLogger } from "../github/github-logger.js";

export interface HandOverWriterOptions {
  /** Stores the value with the running task; false once this worker no longer holds it. */
  readonly saveHandOver: (value: JsonValue) => Promise<boolean>;
  readonly record: JobRecordStore;
  readonly runner: Pick<AgentRunner, "exportRun">;
  readonly logger: DoorLogger;
  readonly taskId: string;
  /** At most one capture per interval (default 10 s); 0 captures at every turn. */
  readonly intervalMs?: number;
  readonly now?: () => number;
}

export interface HandOverWriter {
  /** Subscribe to the run's loop events: a capture starts at a turn's start, when one is due. */
  observe(event: LoopEvent): void;
  /** Waits for a capture in progress (call before the task ends). */
  settle(): Promise<void>;
  /** Resolves once no capture is running or waiting to run; captures go on afterwards. */
  idle(): Promise<void>;
}

/** A stored value larger than this is not written: the next worker would start over anyway. */
const MAX_HAND_OVER_BYTES = 64 * 1024 * 1024;
const DEFAULT_INTERVAL_MS = 10_000;

/**
 * Keeps the queue's copy of a running task up to date so that another worker, on any machine, can
 * continue the run if this one dies: at the start of a turn (the previous turn's checkpoint is
 * recorded, no tool is running), at most once per interval, it reads the run's checkpoint and
 * journal, captures the workspace's changes, and stores them with the task (Redis). Captures never
 * overlap and never fail the task: a capture that fails is logged, and the next one tries again.
 * A turn that starts while a capture is still running is captured as soon as that one ends, if the
 * model has not answered yet: a quick turn followed by a long model call must not leave the stored
 * run a turn behind for the whole call.
 *
 * The checkpoint is read before the workspace, so the workspace can only be ahead of it: a call
 * that started in between is found done on the other worker, where the model is told to check.
 */
export function createHandOverWriter(options: HandOverWriterOptions): HandOverWriter {
  const intervalMs = options.intervalMs ?? DEFAULT_INTERVAL_MS;
  const now = options.now ?? Date.now;
  let lastStartedAt = Number.NEGATIVE_INFINITY;
  let inFlight: Promise<void> | null = null;
  let stopped = false;
  /** A due capture waits for the one in flight. */
  let isPending = false;
  /** From a turn's start to its model's answer no tool runs: a capture may start then. */
  let isAskingModel = false;

  async function capture(): Promise<void> {
    const record = await options.record.load();
    const workspace = record?.workspace;
    // A record without its run id or git directory (an older version's) is not handed over.
    if (!workspace || workspace.runId === undefined || workspace.gitDirectory === undefined) return;
    const run = await options.runner.exportRun(workspace.runId);
    if (run === null) return;
    const changes = await captureWorkspaceChanges(
      { gitDirectory: workspace.gitDirectory, workTree: workspace.workspaceRoot },
      workspace.baseSha,
    );
    const handOver: HandOver = {
      version: 2,
      run,
      changes,
      branch: workspace.branch,
      remoteBranchSha: workspace.remoteBranchSha,
      progressCommentId: record.progressCommentId,
      capturedAt: new Date(now()).toISOString(),
    };
    const text = JSON.stringify(handOver);
    if (text.length > MAX_HAND_OVER_BYTES) {
      options.logger.warn(
        { taskId: options.taskId, bytes: text.length },
        "the run is too large to hand over to another worker; it would start over there",
      );
      return;
    }
    const stillOurs = await options.saveHandOver(JSON.parse(text) as JsonValue);
    if (!stillOurs) stopped = true;
  }

  function start(): void {
    lastStartedAt = now();
    isPending = false;
    inFlight = capture()
      .catch((error: unknown) => {
        options.logger.warn(
          { err: error, taskId: options.taskId },
          "could not store the run for another worker",
        );
      })
      .finally(() => {
        inFlight = null;
        // Once the model has answered, tools may be running: the next turn's start captures instead.
        if (isPending && isAskingModel && !stopped) start();
        else isPending = false;
      });
  }

  return {
    observe(event) {
      if (event.type === "turn-start") isAskingModel = true;
      else if (
        event.type === "model-call-end" ||
        event.type === "tool-call-start" ||
        event.type === "run-finished"
      )
        isAskingModel = false;
      if (event.type !== "turn-start" || stopped) return;
      if (now() - lastStartedAt < intervalMs) return;
      if (inFlight !== null) isPending = true;
      else start();
    },
    async settle() {
      stopped = true;
      await inFlight;
    },
    async idle() {
      // A capture that ends may start the pending one before its promise settles.
      while (inFlight !== null) await inFlight;
    },
  };
}
