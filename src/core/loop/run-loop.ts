import type { ChatMessage, ToolCall, ToolDefinition } from "../model/model-types.js";
import { ModelError } from "../model/model-error.js";
import { costOfResponse } from "../model/cost-usd.js";
import type { ToolInvocation } from "../tools/create-tool-registry.js";
import { createLoopDetector } from "./detect-loop.js";
import type { ExitReason, LoopEvent, LoopState } from "./loop-events.js";
import { addUsage, exceededBudget, type UsageTotals, ZERO_USAGE } from "./loop-budgets.js";

export type {
  ContextPreparer,
  FactsLedger,
  LoopCheckpointState,
  LoopResult,
  RunLoopOptions,
} from "./run-loop-types.js";
import type { LoopResult, RunLoopOptions } from "./run-loop-types.js";

const LOOP_NOTICE =
  "The harness detected a loop: you repeated the same actions without making progress. Tools are now disabled. " +
  "Answer now: say what you found, what you tried, and what is left.";

/**
 * The controlled loop: idle → thinking → executing_tool → observing → … → finished | error.
 * The model proposes; every stop condition is checked here, each with its own exit reason.
 */
export async function runLoop(options: RunLoopOptions): Promise<LoopResult> {
  const now = options.now ?? Date.now;
  const startedAt = now();
  const emit = (event: LoopEvent): void => options.onEvent?.(event);
  let state: LoopState = "idle";
  let turn = options.resume?.turn ?? 0;
  let usage = options.resume?.usage ?? ZERO_USAGE;
  let history: ChatMessage[] = [...options.history];
  const detector = createLoopDetector();
  const tools = options.registry.definitions();

  const moveTo = (next: LoopState): void => {
    if (next === state) return;
    emit({ type: "state-changed", from: state, to: next, turn });
    state = next;
  };
  const finish = (exitReason: ExitReason, finalAnswer: string | null, errorMessage?: string): LoopResult => {
    moveTo(exitReason === "error" || exitReason === "model_error" ? "error" : "finished");
    emit({ type: "run-finished", turn, exitReason, finalAnswer });
    return {
      exitReason,
      finalAnswer,
      turns: turn,
      usage,
      history,
      ...(errorMessage === undefined ? {} : { errorMessage }),
    };
  };

  try {
    const pendingCalls = options.resume?.pendingCalls ?? [];
    if (pendingCalls.length > 0) {
      moveTo("executing_tool");
      const invocations = await executeCalls(options, pendingCalls, turn, emit);
      moveTo("observing");
      observe(options, invocations, history, emit, turn);
    }
    while (true) {
      if (options.signal?.aborted) return finish("cancelled", null);
      if (turn >= options.budgets.maxTurns) return finish("max_turns", null);
      const external = options.externalUsage?.() ?? null;
      const spent = external ? addUsage(usage, external, external.costUsd) : usage;
      const budget = exceededBudget(spent, options.budgets, now() - startedAt);
      if (budget) return finish(budget.reason, null, budget.message);

      turn += 1;
      emit({ type: "turn-start", turn });
      moveTo("thinking");
      const prepared = await prepareMessages(options, history, tools);
      history = [...prepared.history];
      for (const event of prepared.events) emit({ ...event, turn });
      if (prepared.compactionUsage) {
        usage = addUsage(usage, prepared.compactionUsage, prepared.compactionUsage.costUsd);
        emitUsage(emit, turn, usage);
      }
      if (prepared.status === "overflow") {
        return finish(
          "budget_exhausted",
          null,
          "The context window is full even after pruning and compaction.",
        );
      }

      const response = await callModel(
        options,
        prepared.messages,
        tools,
        "auto",
        turn,
        emit,
        prepared.tokens.total,
      );
      usage = addUsage(usage, response.usage, costOfResponse(response));
      emitUsage(emit, turn, usage);
      history.push(response.message);
      const calls = response.message.tool_calls ?? [];
      if (calls.length === 0) {
        return finish("final_answer", response.message.content ?? "");
      }

      await options.onModelResponse?.({ turn, history, usage });
      moveTo("executing_tool");
      const invocations = await executeCalls(options, calls, turn, emit);
      moveTo("observing");
      const hadWrite = observe(options, invocations, history, emit, turn);
      if (options.signal?.aborted) return finish("cancelled", null);

      const loop = detector.recordTurn(calls, hadWrite);
      if (loop) {
        emit({ type: "loop-detected", turn, description: loop });
        // The forced answer is a model call too, so it only happens within the turn limit.
        if (turn >= options.budgets.maxTurns) return finish("loop_detected", null, loop);
        turn += 1;
        return await answerWithoutTools(
          options,
          history,
          usage,
          turn,
          loop,
          emit,
          finish,
          (next) => (usage = next),
        );
      }
    }
  } catch (error) {
    if (error instanceof ModelError) {
      if (error.code === "MODEL_CANCELLED" || options.signal?.aborted) return finish("cancelled", null);
      return finish("model_error", null, `${error.code}: ${error.message}`);
    }
    if (options.signal?.aborted) return finish("cancelled", null);
    return finish("error", null, error instanceof Error ? error.message : String(error));
  }
}

function executeCalls(
  options: RunLoopOptions,
  calls: readonly ToolCall[],
  turn: number,
  emit: (event: LoopEvent) => void,
): Promise<ToolInvocation[]> {
  const context = { ...options.toolContext, ...(options.signal ? { signal: options.signal } : {}) };
  return options.registry.invokeBatch(calls, context, {
    onStart: async (call) => {
      emit({
        type: "tool-call-start",
        turn,
        callId: call.id,
        name: call.function.name,
        arguments: call.function.arguments,
      });
      await options.toolHooks?.onStart?.(call);
    },
    ...(options.toolHooks?.onEnd ? { onEnd: options.toolHooks.onEnd } : {}),
  });
}

async function prepareMessages(
  options: RunLoopOptions,
  history: ChatMessage[],
  tools: readonly ToolDefinition[],
) {
  if (options.context && options.facts) {
    return options.context.prepare({
      systemPrompt: options.systemPrompt,
      tools,
      history,
      facts: options.facts,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }
  const messages: ChatMessage[] = [{ role: "system", content: options.systemPrompt }, ...history];
  return { messages, history, events: [], tokens: { total: 0 }, status: "ok" as const };
}

async function callModel(
  options: RunLoopOptions,
  messages: readonly ChatMessage[],
  tools: readonly ToolDefinition[],
  toolChoice: "auto" | "none",
  turn: number,
  emit: (event: LoopEvent) => void,
  promptTokensEstimate: number,
) {
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
  return response;
}

/** Appends one tool message per call, in call order, so every call is answered by its id. */
function observe(
  options: RunLoopOptions,
  invocations: readonly ToolInvocation[],
  history: ChatMessage[],
  emit: (event: LoopEvent) => void,
  turn: number,
): boolean {
  let hadWrite = false;
  for (const invocation of invocations) {
    if (invocation.refused)
      emit({
        type: "tool-call-refused",
        turn,
        callId: invocation.call.id,
        name: invocation.toolName,
        reason: invocation.result.error?.message ?? "refused",
      });
    emit({
      type: "tool-call-end",
      turn,
      callId: invocation.call.id,
      name: invocation.toolName,
      result: invocation.result,
      durationMs: invocation.durationMs,
      ...(invocation.executeMs === undefined ? {} : { executeMs: invocation.executeMs }),
    });
    options.facts?.observeToolCall(invocation.toolName, invocation.input, invocation.result);
    options.context?.recordToolResult?.(invocation.call.id, invocation.result);
    const kind = options.registry.get(invocation.toolName)?.kind;
    if (invocation.result.ok && (kind === "write" || kind === "exec")) hadWrite = true;
    history.push({ role: "tool", tool_call_id: invocation.call.id, content: invocation.rendered });
  }
  return hadWrite;
}

async function answerWithoutTools(
  options: RunLoopOptions,
  history: ChatMessage[],
  usage: UsageTotals,
  turn: number,
  description: string,
  emit: (event: LoopEvent) => void,
  finish: (reason: ExitReason, answer: string | null, message?: string) => LoopResult,
  setUsage: (usage: UsageTotals) => void,
): Promise<LoopResult> {
  history.push({ role: "user", content: `${LOOP_NOTICE} (${description})` });
  const prepared = await prepareMessages(options, history, []);
  const response = await callModel(options, prepared.messages, [], "none", turn, emit, prepared.tokens.total);
  setUsage(addUsage(usage, response.usage, costOfResponse(response)));
  emitUsage(emit, turn, addUsage(usage, response.usage, costOfResponse(response)));
  const answer: ChatMessage = { role: "assistant", content: response.message.content ?? "" };
  history.push(answer);
  return finish("loop_detected", answer.content);
}

function emitUsage(emit: (event: LoopEvent) => void, turn: number, usage: UsageTotals): void {
  emit({
    type: "usage-updated",
    turn,
    totalTokens: usage.totalTokens,
    promptTokens: usage.promptTokens,
    completionTokens: usage.completionTokens,
    costUsd: usage.costUsd,
  });
}
