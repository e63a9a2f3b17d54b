import type { Attributes } from "./attribute-readers.js";

/** The report's view of a run: turns of items, each item one expandable step. */
export type ToolOutcome = "ok" | "error" | "refused" | "timeout" | "cancelled" | "pending";

interface ItemBase {
  readonly step: number;
  readonly timestamp: string;
}

export interface RequestedToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
}

export interface ModelCallItem extends ItemBase {
  readonly kind: "model-call";
  model: string;
  messageCount: number | null;
  /** False when a model-call-start has no matching end: the call failed or the run was cut. */
  answered: boolean;
  inputTokens: number | null;
  outputTokens: number | null;
  costUsd: number | null;
  durationMs: number | null;
  finishReason: string | null;
  text: string | null;
  toolCalls: RequestedToolCall[];
}

export interface ToolCallItem extends ItemBase {
  readonly kind: "tool-call";
  readonly id: string | null;
  name: string;
  arguments: string | null;
  outcome: ToolOutcome;
  errorType: string | null;
  /** The error message, or the reason of a refusal. */
  message: string | null;
  summary: string | null;
  output: string | null;
  artifacts: string[];
  durationMs: number | null;
}

/** Any other event (retry, fallback, loop, context change, finish...), rendered by its type. */
export interface NoticeItem extends ItemBase {
  readonly kind: "notice";
  readonly eventType: string;
  readonly attributes: Attributes;
}

export interface SubagentItem extends ItemBase {
  readonly kind: "subagent";
  readonly name: string;
  goal: string | null;
  exitReason: string | null;
  costUsd: number | null;
  finished: boolean;
  /** True when the group comes from events tagged `subagent.name` rather than start/end brackets. */
  readonly inferred: boolean;
  readonly turns: TurnGroup[];
}

export type ReportItem = ModelCallItem | ToolCallItem | NoticeItem | SubagentItem;

export interface TurnGroup {
  readonly step: number;
  readonly items: ReportItem[];
  /** The last cumulative usage-updated figures seen in this turn, if any. */
  cumulativeTokens: number | null;
  cumulativeCostUsd: number | null;
}
