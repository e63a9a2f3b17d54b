import type { LoopBudgets, UsageTotals } from "../loop/loop-budgets.js";
import { ZERO_USAGE } from "../loop/loop-budgets.js";
import type { ExitReason, LoopEvent } from "../loop/loop-events.js";
import { runLoop, type LoopResult } from "../loop/run-loop.js";
import type { ModelClient } from "../model/model-types.js";
import { createSession, type SessionOptions } from "../session/create-session.js";
import type { ContentSafety } from "../tools/content-safety.js";
import type { Tool, ToolContext } from "../tools/tool.js";
import { errorResult, okResult, type ToolResult } from "../tools/tool-result.js";

/** Marks a tool context as belonging to a subagent; subagent tools refuse to run under it. */
export const SUBAGENT_SERVICE = "agentforge.subagent";

/** After the hard timeout aborts the run, how long the loop gets to wind down before it is abandoned. */
const ABANDON_GRACE_MS = 1_000;

export interface SubagentRun {
  readonly name: string;
  readonly instructions: string;
  readonly goal: string;
  readonly model: ModelClient;
  /** Already filtered to the subagent's read tools. */
  readonly tools: readonly Tool[];
  readonly allowedTools: readonly string[];
  readonly maxTurns: number;
  readonly timeoutMs: number;
  readonly budgets?: Omit<LoopBudgets, "maxTurns">;
  readonly safety: ContentSafety;
  readonly createApprovalGate: SessionOptions["createApprovalGate"];
  readonly fencingInstructions: string;
  readonly context: ToolContext;
  readonly onEvent?: (event: LoopEvent) => void;
}

export interface SubagentOutcome {
  readonly result: ToolResult;
  readonly exitReason: ExitReason;
  readonly usage: UsageTotals;
}

/**
 * One subagent invocation: a fresh transcript (the goal as the only user message), its own system
 * prompt, a read-only session whose limits the registry enforces at invoke time, a turn limit and a
 * hard timeout that aborts the model call and the tool calls in flight.
 */
export async function runSubagent(run: SubagentRun): Promise<SubagentOutcome> {
  const session = createSession({
    workspaceRoot: run.context.workspaceRoot,
    mode: "build",
    approvalMode: "never",
    allowPrefixes: [],
    tools: run.tools,
    allowedTools: run.allowedTools,
    readOnly: true,
    budgets: { ...run.budgets, maxTurns: run.maxTurns },
    safety: run.safety,
    createApprovalGate: run.createApprovalGate,
    fencingInstructions: run.fencingInstructions,
    role: run.instructions,
  });
  const controller = new AbortController();
  const onParentAbort = (): void => controller.abort(run.context.signal.reason);
  if (run.context.signal.aborted) controller.abort(run.context.signal.reason);
  else run.context.signal.addEventListener("abort", onParentAbort, { once: true });
  let hasTimedOut = false;
  const timer = setTimeout(() => {
    hasTimedOut = true;
    controller.abort(new Error(`subagent ${run.name} timed out`));
  }, run.timeoutMs);

  // What is known if the loop has to be abandoned: the last text the model wrote and the usage so far.
  let partialAnswer: string | null = null;
  let usage: UsageTotals = ZERO_USAGE;
  let turns = 0;
  const observe = (event: LoopEvent): void => {
    if (event.type === "model-call-end" && event.text) partialAnswer = event.text;
    if (event.type === "usage-updated") {
      const { promptTokens, completionTokens, totalTokens, costUsd } = event;
      usage = { promptTokens, completionTokens, totalTokens, costUsd };
    }
    if (event.type === "turn-start") turns = event.turn;
    run.onEvent?.(event);
  };

  const loop = runLoop({
    model: run.model,
    registry: session.registry,
    toolContext: {
      ...run.context,
      signal: controller.signal,
      services: { ...run.context.services, [SUBAGENT_SERVICE]: run.name },
    },
    systemPrompt: session.systemPrompt,
    history: [{ role: "user", content: run.goal }],
    budgets: session.budgets,
    signal: controller.signal,
    onEvent: observe,
  });
  let abandonTimer: NodeJS.Timeout | undefined;
  const abandoned = new Promise<null>((resolve) => {
    controller.signal.addEventListener(
      "abort",
      () => (abandonTimer = setTimeout(() => resolve(null), ABANDON_GRACE_MS)),
      { once: true },
    );
  });
  let finished: LoopResult | null;
  try {
    finished = await Promise.race([loop, abandoned]);
  } finally {
    clearTimeout(timer);
    clearTimeout(abandonTimer);
    run.context.signal.removeEventListener("abort", onParentAbort);
  }
  const final: {
    exitReason: ExitReason;
    answer: string | null;
    usage: UsageTotals;
    turns: number;
    errorMessage?: string;
  } = finished
    ? {
        exitReason: hasTimedOut ? "timeout" : finished.exitReason,
        answer: finished.finalAnswer,
        usage: finished.usage,
        turns: finished.turns,
        ...(finished.errorMessage === undefined ? {} : { errorMessage: finished.errorMessage }),
      }
    : { exitReason: hasTimedOut ? "timeout" : "cancelled", answer: null, usage, turns };
  return { result: toResult(run, final, partialAnswer), exitReason: final.exitReason, usage: final.usage };
}

function toResult(
  run: SubagentRun,
  final: {
    exitReason: ExitReason;
    answer: string | null;
    usage: UsageTotals;
    turns: number;
    errorMessage?: string;
  },
  partialAnswer: string | null,
): ToolResult {
  const metadata = {
    subagent: run.name,
    exitReason: final.exitReason,
    turns: final.turns,
    usage: {
      promptTokens: final.usage.promptTokens,
      completionTokens: final.usage.completionTokens,
      totalTokens: final.usage.totalTokens,
    },
    costUsd: final.usage.costUsd,
  };
  if (final.answer !== null && final.answer.trim() !== "" && final.exitReason !== "timeout") {
    return okResult(final.answer, {
      summary: `subagent ${run.name} answered after ${final.turns} turns (${final.exitReason})`,
      metadata,
    });
  }
  const partial = final.answer?.trim() ? final.answer : partialAnswer;
  const output = partial ? `Partial answer (the subagent did not finish):\n${partial}` : "";
  if (final.exitReason === "timeout") {
    return errorResult("TOOL_TIMEOUT", {
      status: "timeout",
      message: `The subagent ${run.name} did not finish within ${run.timeoutMs} ms and was stopped after ${final.turns} turns.`,
      output,
      recovery_hint: "Give it a narrower goal, or continue with the partial answer and your own tools.",
      next_actions: ["retry with a narrower goal", "continue without the subagent"],
      metadata,
    });
  }
  if (final.exitReason === "cancelled") {
    return errorResult("CANCELLED", {
      status: "cancelled",
      recoverable: false,
      message: `The subagent ${run.name} was cancelled with the run.`,
      output,
      recovery_hint: "Nothing to do: the run is stopping.",
      next_actions: [],
      metadata,
    });
  }
  return errorResult("SUBAGENT_FAILED", {
    message: `The subagent ${run.name} stopped without an answer (${final.exitReason}${final.errorMessage ? `: ${final.errorMessage}` : ""}).`,
    output,
    recovery_hint: "Give it a narrower goal, or continue with your own tools.",
    next_actions: ["retry with a narrower goal", "continue without the subagent"],
    metadata,
  });
}
