import type { RunInput } from "../agent-run.js";
import { createPinnedFacts, pinnedFactsFromJSON, type PinnedFacts } from "../context/index.js";
import type { ChatMessage } from "../model/model-types.js";
import type { CompletedToolCall, RunCheckpoint } from "../persistence/run-checkpoint.js";

/** The pinned facts of a resumed run, or a fresh ledger for the task's goal. */
export function restoreFacts(task: RunInput, resume: RunCheckpoint | undefined): PinnedFacts {
  if (resume) {
    const restored = pinnedFactsFromJSON(resume.pinnedFacts);
    if (restored.success) return restored.value;
  }
  return createPinnedFacts(task.prompt);
}

/**
 * A checkpoint needs the stored result only of a call its history does not answer yet; the journal
 * has every completion anyway. Keeping all of them would copy every tool output a second time into
 * a file rewritten twice a turn, and validating it on save grows with the whole run.
 */
export function unansweredCompletedCalls(
  completed: Readonly<Record<string, CompletedToolCall>>,
  history: readonly ChatMessage[],
): Record<string, CompletedToolCall> {
  // Only the calls of the last assistant message can be unanswered (every earlier one was
  // answered before the model was asked again), so the scan stops there: constant per turn.
  let last = history.length - 1;
  while (last >= 0 && history[last]?.role !== "assistant") last -= 1;
  const unanswered = new Set<string>();
  for (let index = Math.max(last, 0); index < history.length; index += 1) {
    const message = history[index] as ChatMessage;
    if (message.role === "assistant") for (const call of message.tool_calls ?? []) unanswered.add(call.id);
    else if (message.role === "tool") unanswered.delete(message.tool_call_id);
  }
  const kept: Record<string, CompletedToolCall> = {};
  for (const id of unanswered) {
    const entry = completed[id];
    if (entry) kept[id] = entry;
  }
  return kept;
}

/** What of a task a checkpoint keeps, and how a resumed run gets it back. */
export function toCheckpointTask(task: RunInput): RunCheckpoint["task"] {
  return {
    prompt: task.prompt,
    workspaceRoot: task.workspaceRoot,
    ...(task.readOnlyPaths === undefined ? {} : { readOnlyPaths: task.readOnlyPaths }),
    mode: task.mode,
    approvalMode: task.approvalMode,
    allowPrefixes: task.allowPrefixes,
    ...(task.maxTurns === undefined ? {} : { maxTurns: task.maxTurns }),
    ...(task.untrustedInputs ? { untrustedInputs: task.untrustedInputs } : {}),
    ...(task.repositoryInstructions ? { repositoryInstructions: task.repositoryInstructions } : {}),
    ...(task.model === undefined ? {} : { model: task.model }),
    ...(task.tracePath ? { settings: { tracePath: task.tracePath } } : {}),
  };
}

export function fromCheckpointTask(checkpoint: RunCheckpoint): RunInput {
  const saved = checkpoint.task;
  return {
    prompt: saved.prompt,
    workspaceRoot: saved.workspaceRoot,
    ...(saved.readOnlyPaths === undefined ? {} : { readOnlyPaths: saved.readOnlyPaths }),
    mode: saved.mode,
    approvalMode: saved.approvalMode,
    allowPrefixes: saved.allowPrefixes,
    ...(saved.maxTurns === undefined ? {} : { maxTurns: saved.maxTurns }),
    ...(saved.untrustedInputs ? { untrustedInputs: saved.untrustedInputs } : {}),
    ...(saved.repositoryInstructions ? { repositoryInstructions: saved.repositoryInstructions } : {}),
    ...(saved.model === undefined ? {} : { model: saved.model }),
    ...(checkpoint.tracePath ? { tracePath: checkpoint.tracePath } : {}),
  };
}
