import type { ToolCall, TokenUsage } from "../model/model-types.js";
import type { CostUsd } from "../model/cost-usd.js";
import type { ToolResult } from "../tools/tool-result.js";

export type LoopState = "idle" | "thinking" | "executing_tool" | "observing" | "finished" | "error";

/** Every way a run stops; checkpoints, eval files and traces validate against this one list. */
export const EXIT_REASONS = [
  "final_answer",
  "max_turns",
  "loop_detected",
  "budget_exhausted",
  "timeout",
  "cancelled",
  "model_error",
  "error",
] as const;

export type ExitReason = (typeof EXIT_REASONS)[number];

/** Events of the loop, noun-verb names, a discriminated union that doors subscribe to. */
export type LoopEvent =
  | {
      readonly type: "state-changed";
      readonly from: LoopState;
      readonly to: LoopState;
      readonly turn: number;
    }
  | { readonly type: "turn-start"; readonly turn: number }
  | {
      readonly type: "model-call-start";
      readonly turn: number;
      readonly model: string;
      readonly messageCount: number;
      readonly promptTokensEstimate: number;
    }
  | { readonly type: "text-delta"; readonly turn: number; readonly text: string }
  | {
      readonly type: "model-call-end";
      readonly turn: number;
      readonly model: string;
      readonly usage: TokenUsage;
      /** Null when the price or the usage is unknown. */
      readonly costUsd: CostUsd;
      readonly durationMs: number;
      readonly toolCalls: readonly ToolCall[];
      readonly finishReason: string;
      readonly text: string | null;
    }
  | {
      readonly type: "model-retry";
      readonly turn: number;
      readonly model: string;
      readonly attempt: number;
      readonly delayMs: number;
      readonly reason: string;
    }
  | {
      readonly type: "model-fallback";
      readonly turn: number;
      readonly from: string;
      readonly to: string;
      readonly reason: string;
    }
  | {
      readonly type: "tool-call-start";
      readonly turn: number;
      readonly callId: string;
      readonly name: string;
      readonly arguments: string;
    }
  | {
      readonly type: "tool-call-end";
      readonly turn: number;
      readonly callId: string;
      readonly name: string;
      readonly result: ToolResult;
      readonly durationMs: number;
      /** Of durationMs, the time the tool itself ran (the rest is the harness's pipeline). */
      readonly executeMs?: number;
    }
  | {
      readonly type: "tool-call-refused";
      readonly turn: number;
      readonly callId: string;
      readonly name: string;
      readonly reason: string;
    }
  | {
      readonly type: "usage-updated";
      readonly turn: number;
      readonly totalTokens: number;
      readonly promptTokens: number;
      readonly completionTokens: number;
      /** Null when the price or the usage is unknown. */
      readonly costUsd: CostUsd;
    }
  | { readonly type: "loop-detected"; readonly turn: number; readonly description: string }
  | {
      readonly type: "context-warning";
      readonly turn: number;
      readonly usedTokens: number;
      readonly windowTokens: number;
    }
  | {
      readonly type: "context-pruned";
      readonly turn: number;
      readonly prunedCount: number;
      readonly tokensBefore: number;
      readonly tokensAfter: number;
    }
  | {
      readonly type: "context-compacted";
      readonly turn: number;
      readonly tokensBefore: number;
      readonly tokensAfter: number;
      readonly summaryTokens: number;
    }
  | { readonly type: "subagent-start"; readonly turn: number; readonly name: string; readonly goal: string }
  | {
      readonly type: "subagent-end";
      readonly turn: number;
      readonly name: string;
      readonly exitReason: ExitReason;
      /** Null when the price or the usage is unknown. */
      readonly costUsd: CostUsd;
    }
  | {
      readonly type: "run-finished";
      readonly turn: number;
      readonly exitReason: ExitReason;
      readonly finalAnswer: string | null;
    };

export type LoopEventType = LoopEvent["type"];
export type LoopEventListener = (event: LoopEvent) => void;

type WithoutTurn<Event> = Event extends unknown ? Omit<Event, "turn"> : never;

/** Working-memory events as the context manager reports them; the loop adds the turn. */
export type ContextEvent = WithoutTurn<
  Extract<LoopEvent, { type: "context-warning" | "context-pruned" | "context-compacted" }>
>;
