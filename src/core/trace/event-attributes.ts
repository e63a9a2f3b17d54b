import type { LoopEvent } from "../loop/loop-events.js";

/**
 * Maps a loop event to trace attributes with OpenTelemetry-style names (gen_ai.* for model calls,
 * tool_call.* for tools). Text deltas are not traced: the model-call-end event holds the full text.
 */
export function eventAttributes(event: LoopEvent): Record<string, unknown> | null {
  switch (event.type) {
    case "text-delta":
      return null;
    case "state-changed":
      return { "loop.state.from": event.from, "loop.state.to": event.to };
    case "turn-start":
      return {};
    case "model-call-start":
      return { "gen_ai.request.model": event.model, "gen_ai.request.message_count": event.messageCount };
    case "model-call-end":
      return {
        "gen_ai.response.model": event.model,
        "gen_ai.usage.input_tokens": event.usage.promptTokens,
        "gen_ai.usage.output_tokens": event.usage.completionTokens,
        "gen_ai.response.finish_reason": event.finishReason,
        "model.cost_usd": event.costUsd,
        "model.duration_ms": Math.round(event.durationMs),
        "model.text": event.text,
        "model.tool_calls": event.toolCalls.map((call) => ({
          id: call.id,
          name: call.function.name,
          arguments: call.function.arguments,
        })),
      };
    case "model-retry":
      return {
        "gen_ai.request.model": event.model,
        "retry.attempt": event.attempt,
        "retry.delay_ms": event.delayMs,
        "retry.reason": event.reason,
      };
    case "model-fallback":
      return { "fallback.from": event.from, "fallback.to": event.to, "fallback.reason": event.reason };
    case "tool-call-start":
      return {
        "tool_call.id": event.callId,
        "tool_call.name": event.name,
        "tool_call.arguments": event.arguments,
      };
    case "tool-call-end":
      return {
        "tool_call.id": event.callId,
        "tool_call.name": event.name,
        "tool_call.ok": event.result.ok,
        "tool_call.status": event.result.status,
        "tool_call.error_type": event.result.error?.error_type ?? null,
        "tool_call.error_message": event.result.error?.message ?? null,
        "tool_call.summary": event.result.summary,
        "tool_call.output": event.result.output,
        "tool_call.artifacts": event.result.artifacts,
        "tool_call.duration_ms": Math.round(event.durationMs),
        ...(event.executeMs === undefined ? {} : { "tool_call.execute_ms": Math.round(event.executeMs) }),
      };
    case "tool-call-refused":
      return { "tool_call.id": event.callId, "tool_call.name": event.name, "refusal.reason": event.reason };
    case "usage-updated":
      return {
        "usage.total_tokens": event.totalTokens,
        "usage.prompt_tokens": event.promptTokens,
        "usage.completion_tokens": event.completionTokens,
        "usage.cost_usd": event.costUsd,
      };
    case "loop-detected":
      return { "loop.description": event.description };
    case "context-warning":
      return { "context.used_tokens": event.usedTokens, "context.window_tokens": event.windowTokens };
    case "context-pruned":
      return {
        "context.pruned_count": event.prunedCount,
        "context.tokens_before": event.tokensBefore,
        "context.tokens_after": event.tokensAfter,
      };
    case "context-compacted":
      return {
        "context.tokens_before": event.tokensBefore,
        "context.tokens_after": event.tokensAfter,
        "context.summary_tokens": event.summaryTokens,
      };
    case "subagent-start":
      return { "subagent.name": event.name, "subagent.goal": event.goal };
    case "subagent-end":
      return {
        "subagent.name": event.name,
        "subagent.exit_reason": event.exitReason,
        "subagent.cost_usd": event.costUsd,
      };
    case "run-finished":
      return { "run.exit_reason": event.exitReason, "run.final_answer": event.finalAnswer };
  }
}
