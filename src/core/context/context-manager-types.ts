import type { ChatMessage, ToolDefinition } from "../model/model-types.js";
import type { ToolResult } from "../tools/tool-result.js";
import type { ContextBudget, ContextThresholds } from "./context-budget.js";
import type { Compactor } from "./create-model-compactor.js";
import type { PinnedFactsLedger } from "./create-pinned-facts.js";
import type { TokenCounter } from "./create-token-counter.js";
import type { RenderPinnedFactsOptions } from "./render-pinned-facts.js";
import type { ContextEvent } from "../loop/loop-events.js";

export interface ContextManagerOptions {
  readonly windowTokens: number;
  readonly counter: TokenCounter;
  readonly thresholds?: Partial<ContextThresholds>;
  readonly reserveOutputTokens?: number;
  /** Assistant turns at the end of the history that compaction keeps verbatim (default 4). */
  readonly keepRecentTurns?: number;
  /** Most recent tool outputs that ordinary pruning never touches (default 3). */
  readonly protectRecentObservations?: number;
  readonly compactor?: Compactor;
  /** The run's scratch folder: pruned outputs are written here in full. */
  readonly scratchDir?: string;
  /** Set when the model has a tool that can read scratchDir; stubs then point it there. */
  readonly scratchReadable?: boolean;
  readonly ledger?: RenderPinnedFactsOptions;
  /** Longest continuation summary kept (default 15% of the input capacity). */
  readonly maxSummaryTokens?: number;
}

export interface PrepareInput {
  readonly systemPrompt: string;
  readonly tools: readonly ToolDefinition[];
  /** The conversation without the system prompt, as the loop keeps it. */
  readonly history: readonly ChatMessage[];
  readonly facts: PinnedFactsLedger;
  readonly signal?: AbortSignal;
  /**
   * The server refused the last request as too long although the estimate was under the lines:
   * prune and compact as if the request were over the compaction line, down to well below its
   * estimated size.
   */
  readonly force?: boolean;
}

/** A warning is given when usage crosses the warning line, not again on every turn it stays above it. */
export type { ContextEvent };

export interface ContextTokens {
  readonly total: number;
  readonly byPart: {
    /** The system prompt and the request's framing tokens. */
    readonly systemPrompt: number;
    readonly toolSchemas: number;
    readonly pinnedFacts: number;
    /** User and assistant messages, including summaries and notes left by compaction. */
    readonly history: number;
    /** Tool messages, whole or pruned. */
    readonly observations: number;
  };
}

export interface CompactionUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly totalTokens: number;
  readonly costUsd: number;
}

export interface PrepareResult {
  /** What to send: the system prompt, the pinned-facts ledger, then the history. */
  readonly messages: ChatMessage[];
  /** The history after pruning and compaction; the loop replaces its own with it. */
  readonly history: ChatMessage[];
  readonly events: ContextEvent[];
  /** Spent on summarizing during this call, apart from the run's own model calls. */
  readonly compactionUsage?: CompactionUsage;
  readonly tokens: ContextTokens;
  /** "overflow": still above the hard stop after everything; the loop ends with budget_exhausted. */
  readonly status: "ok" | "overflow";
  /** What went wrong but was handled (a failed compaction, an unwritable scratch folder). */
  readonly notes: readonly string[];
  readonly compactionFailed?: { readonly message: string; readonly code?: string };
}

export interface ContextManager {
  readonly budget: ContextBudget;
  prepare(input: PrepareInput): Promise<PrepareResult>;
  /** Lets a pruned stub say how the call ended (ok, error type) and where a saved output is. */
  recordToolResult(callId: string, result: ToolResult): void;
  /** The server's prompt_tokens for a request `prepare` estimated at `estimatedTokens`: corrects later counts. */
  recordPromptTokens(estimatedTokens: number, reportedTokens: number): void;
  /** Counts what `prepare` would send, changing nothing. */
  measure(input: Omit<PrepareInput, "signal">): ContextTokens;
}
