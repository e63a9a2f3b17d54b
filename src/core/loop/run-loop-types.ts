import type { ChatMessage, ModelClient, ToolCall, ToolDefinition } from "../model/model-types.js";
import type { CostUsd } from "../model/cost-usd.js";
import type { BatchHooks, ToolRegistry } from "../tools/create-tool-registry.js";
import type { ToolContext } from "../tools/tool.js";
import type { ToolResult } from "../tools/tool-result.js";
import type { ContextEvent, ExitReason, LoopEventListener } from "./loop-events.js";
import type { LoopBudgets, UsageTotals } from "./loop-budgets.js";

/** What the loop needs from working memory. src/core/context implements it. */
export interface ContextPreparer {
  /** Lets pruning stubs name each call's outcome and saved-output path. */
  recordToolResult?(callId: string, result: ToolResult): void;
  /** The server's prompt_tokens for a request prepared at `estimatedTokens`. */
  recordPromptTokens?(estimatedTokens: number, reportedTokens: number): void;
  prepare(input: {
    readonly systemPrompt: string;
    readonly tools: readonly ToolDefinition[];
    readonly history: readonly ChatMessage[];
    readonly facts: FactsLedger;
    readonly signal?: AbortSignal;
    /** Compact even below the lines: the server said the last request did not fit. */
    readonly force?: boolean;
  }): Promise<{
    readonly messages: readonly ChatMessage[];
    readonly history: readonly ChatMessage[];
    readonly events: readonly ContextEvent[];
    readonly compactionUsage?: {
      readonly promptTokens: number;
      readonly completionTokens: number;
      readonly totalTokens: number;
      readonly costUsd: CostUsd;
    };
    readonly tokens: { readonly total: number };
    readonly status: "ok" | "overflow";
  }>;
}

/** Facts the harness keeps for the model across compactions. */
export interface FactsLedger {
  observeToolCall(name: string, args: unknown, result: ToolResult): void;
  render(): string;
}

export interface LoopCheckpointState {
  readonly turn: number;
  readonly history: readonly ChatMessage[];
  readonly usage: UsageTotals;
}

export interface RunLoopOptions {
  readonly model: ModelClient;
  readonly registry: ToolRegistry;
  readonly toolContext: ToolContext;
  readonly systemPrompt: string;
  /** The transcript so far without the system prompt; starts with the user's request. */
  readonly history: readonly ChatMessage[];
  readonly budgets: LoopBudgets;
  readonly facts?: FactsLedger;
  readonly context?: ContextPreparer;
  readonly signal?: AbortSignal;
  readonly onEvent?: LoopEventListener;
  /** Called after each model response, before its tool calls run, so a crash never loses them. */
  readonly onModelResponse?: (state: LoopCheckpointState) => Promise<void> | void;
  /** Awaited before a tool runs and after it finished: the crash journal of the run. */
  readonly toolHooks?: BatchHooks;
  /** Where a resumed run stands: the calls of its last assistant message still to run, the turns and usage spent. */
  readonly resume?: {
    readonly pendingCalls: readonly ToolCall[];
    readonly turn: number;
    readonly usage: UsageTotals;
  };
  readonly stream?: boolean;
  readonly now?: () => number;
  /** Spending outside this loop (subagents) that counts against the same budgets. */
  readonly externalUsage?: () => UsageTotals | null;
}

export interface LoopResult {
  readonly exitReason: ExitReason;
  readonly finalAnswer: string | null;
  readonly turns: number;
  readonly usage: UsageTotals;
  readonly history: readonly ChatMessage[];
  readonly errorMessage?: string;
}
