import type { LoopCheckpointState } from "../loop/run-loop.js";
import type { BatchHooks } from "../tools/create-tool-registry.js";
import type { ToolRegistry } from "../tools/create-tool-registry.js";
import type { PinnedFacts } from "../context/index.js";
import type { CheckpointStore } from "../persistence/create-checkpoint-store.js";
import type { CompletedToolCall, RunCheckpoint } from "../persistence/run-checkpoint.js";
import { unansweredCompletedCalls } from "./run-checkpoint-state.js";

export interface RunRecorder {
  /** Records where the run stands; the first call of a run writes a snapshot, later ones deltas. */
  checkpoint(
    state: LoopCheckpointState,
    status: RunCheckpoint["status"],
    exitReason?: RunCheckpoint["exitReason"],
  ): void;
  /** The crash journal: calls that may have effects are marked started, every call completed. */
  readonly toolHooks: BatchHooks;
  /** Flushes the checkpoints and the journal to the disk. */
  close(): Promise<void>;
}

export interface RunRecorderOptions {
  readonly store: CheckpointStore;
  readonly runId: string;
  readonly task: RunCheckpoint["task"];
  readonly tracePath: string;
  readonly facts: PinnedFacts;
  readonly registry: ToolRegistry;
  /** Calls completed before this process took the run over (from the checkpoint and journal). */
  readonly completed: Readonly<Record<string, CompletedToolCall>>;
}

/**
 * What makes a run survive a crash: a checkpoint after every model response (before its calls
 * run) and at the end, and a journal line before and after each call. A read-only call needs no
 * "started" marker: one a crash cut short has nothing to repeat and simply runs again.
 */
export async function createRunRecorder(options: RunRecorderOptions): Promise<RunRecorder> {
  const { store, runId } = options;
  const completed: Record<string, CompletedToolCall> = { ...options.completed };
  const log = await store.openCheckpointLog(runId);
  return {
    checkpoint(state, status, exitReason) {
      log.record({
        runId,
        task: options.task,
        turn: state.turn,
        history: state.history,
        pinnedFacts: options.facts.toJSON(),
        usage: state.usage,
        completedToolCalls: unansweredCompletedCalls(completed, state.history),
        tracePath: options.tracePath,
        status,
        ...(exitReason ? { exitReason } : {}),
        updatedAt: new Date().toISOString(),
      });
    },
    toolHooks: {
      onStart: (call) =>
        options.registry.get(call.function.name)?.kind === "read"
          ? undefined
          : store.markToolCallStarted(runId, call.id, call.function.name),
      onEnd: async (invocation) => {
        const entry = { name: invocation.toolName, result: invocation.result, content: invocation.rendered };
        completed[invocation.call.id] = entry;
        await store.markToolCallCompleted(runId, invocation.call.id, entry);
      },
    },
    async close() {
      await log.close();
      await store.closeRun(runId);
    },
  };
}
