import type { RunInput } from "../agent-run.js";
import type { ContextManager, PinnedFacts } from "../context/index.js";
import type { LoopEventListener } from "../loop/loop-events.js";
import type { ChatMessage, ToolCall } from "../model/model-types.js";
import { planResume } from "../persistence/plan-resume.js";
import type { RunCheckpoint } from "../persistence/run-checkpoint.js";
import type { ContentSafety } from "../tools/content-safety.js";
import { renderToolMessage } from "../tools/render-tool-result.js";
import type { TraceWriter } from "../trace/create-trace-writer.js";
import type { Fence } from "../safety/create-fence.js";
import { buildTaskMessage } from "../session/build-task-message.js";
import { replaySettledCalls } from "./replay-settled-calls.js";

/** Where the loop starts: the task's first message, or the resumed transcript and what is left of its last turn. */
export interface RunStart {
  readonly history: readonly ChatMessage[];
  readonly resumed?: {
    readonly pendingCalls: readonly ToolCall[];
    readonly turn: number;
    readonly usage: RunCheckpoint["usage"];
  };
}

export interface StartRunHistoryOptions {
  readonly task: RunInput;
  readonly fence: Fence;
  readonly safety: ContentSafety;
  readonly resume?: { readonly checkpoint: RunCheckpoint; readonly startedCallIds?: ReadonlySet<string> };
  /** Calls whose end the crashed process already traced. */
  readonly tracedCallEnds: ReadonlySet<string>;
  readonly trace: TraceWriter;
  readonly facts: PinnedFacts;
  readonly context: ContextManager;
  readonly onEvent: LoopEventListener;
}

/**
 * A fresh run starts from the task message. A resumed one starts from its checkpoint: the calls
 * the journal has as completed are answered from it (and their facts replayed), started calls
 * without a result are reported as interrupted, and the rest still run.
 */
export function startRunHistory(options: StartRunHistoryOptions): RunStart {
  const { resume } = options;
  if (resume === undefined)
    return { history: [{ role: "user", content: buildTaskMessage(options.task, options.fence) }] };
  const plan = planResume(resume.checkpoint, {
    ...(resume.startedCallIds ? { startedCallIds: resume.startedCallIds } : {}),
    renderResult: (name, result) =>
      renderToolMessage(name, result, (content, source) => options.safety.fence(content, source)),
  });
  options.trace.record("run-resumed", resume.checkpoint.turn, {
    "resume.reused_results": plan.reusedResults.length,
    "resume.interrupted_calls": plan.interruptedCalls.length,
    "resume.pending_calls": plan.pendingCalls.length,
  });
  replaySettledCalls(
    plan,
    resume.checkpoint.turn,
    { facts: options.facts, context: options.context, onEvent: options.onEvent },
    options.tracedCallEnds,
  );
  return {
    history: [...plan.history],
    resumed: {
      pendingCalls: plan.pendingCalls,
      turn: resume.checkpoint.turn,
      usage: resume.checkpoint.usage,
    },
  };
}
