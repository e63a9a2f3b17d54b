import type { ChatMessage, ModelResponse, ToolCall } from "../model/model-types.js";
import { ModelError } from "../model/model-error.js";
import { repairAssistantMessage } from "../model/repair-tool-arguments.js";
import { costOfResponse } from "../model/cost-usd.js";
import type { ToolInvocation } from "../tools/create-tool-registry.js";
import { createLoopDetector } from "./detect-loop.js";
import type { ExitReason, LoopEvent, LoopState } from "./loop-events.js";
import { addUsage, exceededBudget, type UsageTotals, ZERO_USAGE } from "./loop-budgets.js";
import { callModel, emitUsage, prepareMessages } from "./call-model.js";
import { assertSendable, toolMarkupInText, toolsUnsupportedByServer } from "./check-model-answer.js";
import {
  describeRepeatedTruncation,
  MAX_CONSECUTIVE_TRUNCATIONS,
  recordTruncatedAnswer,
} from "./record-truncated-answer.js";

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
  let truncations = 0;
  // Text of cut-off answers, put in front of the answer that finishes them.
  let carriedText = "";
  let repairedCallIds: ReadonlySet<string> = new Set();

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
      if (tools.length > 0 && options.model.capabilities?.supportsTools === false) {
        throw toolsUnsupportedByServer(options.model.model);
      }
      let response: ModelResponse | undefined;
      // One retry after the server refuses the request as too long, with compaction forced.
      for (let attempt = 0; response === undefined; attempt += 1) {
        const prepared = await prepareMessages(options, history, tools, attempt > 0);
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
        assertSendable(prepared.messages);
        try {
          response = await callModel(
            options,
            prepared.messages,
            tools,
            "auto",
            turn,
            emit,
            prepared.tokens.total,
          );
        } catch (error) {
          if (!(error instanceof ModelError) || error.code !== "MODEL_CONTEXT_OVERFLOW") throw error;
          if (error.promptTokens !== undefined) {
            options.context?.recordPromptTokens?.(prepared.tokens.total, error.promptTokens);
          }
          if (attempt >= 1 || !options.context) {
            return finish("budget_exhausted", null, describeOverflow(error, prepared.tokens.total));
          }
        }
      }
      usage = addUsage(usage, response.usage, costOfResponse(response));
      emitUsage(emit, turn, usage);
      if (response.finishReason === "length") {
        truncations += 1;
        carriedText += recordTruncatedAnswer(response, history, emit, turn);
        await options.onModelResponse?.({ turn, history, usage });
        if (truncations >= MAX_CONSECUTIVE_TRUNCATIONS) {
          return finish(
            "budget_exhausted",
            carriedText === "" ? null : carriedText,
            describeRepeatedTruncation(),
          );
        }
        continue;
      }
      truncations = 0;
      // Arguments that are not JSON are echoed as {}: servers re-parse them and refuse otherwise.
      const echoed = repairAssistantMessage(response.message);
      history.push(echoed.message);
      const calls = response.message.tool_calls ?? [];
      if (calls.length === 0) {
        const markup =
          tools.length > 0 ? toolMarkupInText(response.model, response.message.content) : undefined;
        if (markup) throw markup;
        return finish("final_answer", carriedText + (response.message.content ?? ""));
      }
      carriedText = "";
      repairedCallIds = new Set(echoed.repairedCallIds);

      await options.onModelResponse?.({ turn, history, usage });
      moveTo("executing_tool");
      const invocations = await executeCalls(options, calls, turn, emit);
      moveTo("observing");
      const hadWrite = observe(options, invocations, history, emit, turn, repairedCallIds);
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

/** Appends one tool message per call, in call order, so every call is answered by its id. */
function observe(
  options: RunLoopOptions,
  invocations: readonly ToolInvocation[],
  history: ChatMessage[],
  emit: (event: LoopEvent) => void,
  turn: number,
  repairedCallIds: ReadonlySet<string> = new Set(),
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
    const content = repairedCallIds.has(invocation.call.id)
      ? `${invocation.rendered}\n(Your arguments for this call were not valid JSON, so the conversation shows {} in their place.)`
      : invocation.rendered;
    history.push({ role: "tool", tool_call_id: invocation.call.id, content });
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

function describeOverflow(error: ModelError, estimatedTokens: number): string {
  const window = error.contextWindow === undefined ? "" : ` of ${error.contextWindow} tokens`;
  const needed =
    error.promptTokens === undefined
      ? `about ${estimatedTokens} tokens by the harness's count`
      : `${error.promptTokens} tokens by the server's count`;
  return `The model's context window${window} is too small for this task: even after compaction the request needed ${needed}. Use a server with a larger context (llama-server -c), or a model with a longer one.`;
}
