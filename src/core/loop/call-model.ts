import { costOfResponse } from "../model/cost-usd.js";
import type { ChatMessage, ModelResponse, ToolDefinition } from "../model/model-types.js";
import type { LoopEvent } from "./loop-events.js";
import type { UsageTotals } from "./loop-budgets.js";
import type { RunLoopOptions } from "./run-loop-types.js";

export async function prepareMessages(
  options: RunLoopOptions,
  history: ChatMessage[],
  tools: readonly ToolDefinition[],
  force = false,
) {
  if (options.context && options.facts) {
    return options.context.prepare({
      systemPrompt: options.systemPrompt,
      tools,
      history,
      facts: options.facts,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(force ? { force } : {}),
    });
  }
  const messages: ChatMessage[] = [{ role: "system", content: options.systemPrompt }, ...history];
  return { messages, history, events: [], tokens: { total: 0 }, status: "ok" as const };
}

export async function callModel(
  options: RunLoopOptions,
  messages: readonly ChatMessage[],
  tools: readonly ToolDefinition[],
  toolChoice: "auto" | "none",
  turn: number,
  emit: (event: LoopEvent) => void,
  promptTokensEstimate: number,
): Promise<ModelResponse> {
  emit({
    type: "model-call-start",
    turn,
    model: options.model.model,
    messageCount: messages.length,
    promptTokensEstimate,
  });
  const startedAt = performance.now();
  const response = await options.model.complete(
    { messages, tools: toolChoice === "none" ? [] : tools, toolChoice, stream: options.stream ?? false },
    {
      ...(options.signal ? { signal: options.signal } : {}),
      onTextDelta: (text) => emit({ type: "text-delta", turn, text }),
      onRetry: (info) => emit({ type: "model-retry", turn, ...info }),
      onFallback: (info) => emit({ type: "model-fallback", turn, ...info }),
    },
  );
  emit({
    type: "model-call-end",
    turn,
    model: response.model,
    usage: response.usage,
    costUsd: costOfResponse(response),
    durationMs: performance.now() - startedAt,
    toolCalls: response.message.tool_calls ?? [],
    text: response.message.content,
    finishReason: response.finishReason,
  });
  // Later estimates follow the server's own count of this request.
  if (promptTokensEstimate > 0 && response.usage.promptTokens > 0) {
    options.context?.recordPromptTokens?.(promptTokensEstimate, response.usage.promptTokens);
  }
  return response;
}

export function emitUsage(emit: (event: LoopEvent) => void, turn: number, usage: UsageTotals): void {
  emit({
    type: "usage-updated",
    turn,
    totalTokens: usage.totalTokens,
    promptTokens: usage.promptTokens,
    completionTokens: usage.completionTokens,
    costUsd: usage.costUsd,
  });
}
