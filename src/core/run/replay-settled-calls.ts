import type { LoopEventListener } from "../loop/loop-events.js";
import type { PinnedFacts } from "../context/index.js";
import type { ResumePlan } from "../persistence/plan-resume.js";
import type { ToolResult } from "../tools/tool-result.js";

/**
 * Calls that finished (or were cut off) after the last checkpoint: the checkpoint (taken after the
 * model response that asked for them) does not hold their facts (files changed, commands,
 * failures). Replays them in call order, as the loop does after a batch, and tells their outcome
 * in the trace unless the crashed process already had (it crashed after `observe`, while waiting
 * for the next model response).
 */
export function replaySettledCalls(
  plan: ResumePlan,
  turn: number,
  sinks: {
    readonly facts: PinnedFacts;
    readonly context: { recordToolResult(callId: string, result: ToolResult): void };
    readonly onEvent: LoopEventListener;
  },
  /** Calls whose end the trace already tells (the crashed process traced them): not told twice. */
  alreadyTraced: ReadonlySet<string> = new Set(),
): void {
  const settled = new Map<string, { name: string; result: unknown }>();
  for (const reused of plan.reusedResults) settled.set(reused.callId, reused);
  for (const interrupted of plan.interruptedCalls) settled.set(interrupted.callId, interrupted);
  const argumentsById = new Map<string, string>();
  for (const message of plan.history) {
    if (message.role === "assistant")
      for (const call of message.tool_calls ?? []) argumentsById.set(call.id, call.function.arguments);
    if (message.role !== "tool") continue;
    const entry = settled.get(message.tool_call_id);
    if (!entry || !isToolResult(entry.result)) continue;
    const { result } = entry;
    sinks.facts.observeToolCall(
      entry.name,
      parseJsonArguments(argumentsById.get(message.tool_call_id)),
      result,
    );
    sinks.context.recordToolResult(message.tool_call_id, result);
    if (alreadyTraced.has(message.tool_call_id)) continue;
    sinks.onEvent({
      type: "tool-call-end",
      turn,
      callId: message.tool_call_id,
      name: entry.name,
      result,
      durationMs: 0,
    });
  }
}

/** A stored result is JSON from our own checkpoint; checked before the facts ledger reads it. */
function isToolResult(value: unknown): value is ToolResult {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as Partial<Record<keyof ToolResult, unknown>>;
  return (
    typeof candidate.ok === "boolean" &&
    typeof candidate.status === "string" &&
    typeof candidate.summary === "string" &&
    Array.isArray(candidate.artifacts) &&
    Array.isArray(candidate.next_actions)
  );
}

function parseJsonArguments(text: string | undefined): unknown {
  if (text === undefined) return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    // Malformed arguments were already answered with INVALID_ARGUMENTS; the ledger only needs a target.
    return { raw: text, parseError: error instanceof Error ? error.message : String(error) };
  }
}
