import { z } from "zod";
import type { ChatMessage, ToolCall } from "../model/model-types.js";
import { EXIT_REASONS } from "../loop/loop-events.js";
import type { CompletedToolCall, RunCheckpoint } from "./run-checkpoint.js";
import { chatMessageSchema, completedToolCallSchema } from "./run-checkpoint.js";
import type { SchemaSpec } from "./schema-version.js";

/**
 * What changed between two checkpoints of one run, small enough to append after every turn.
 *
 * A run's history mostly grows at its end, but the context manager may also rewrite older messages
 * (pruned observations) or replace the whole transcript (compaction). A delta therefore names the
 * new history length and every position whose message differs, so applying it is exact whatever
 * happened. The other fields are small and written whole; pinned facts and stored results only
 * when they changed.
 */
export const CHECKPOINT_DELTA_SCHEMA: SchemaSpec = { kind: "checkpoint-delta", version: 1 };

export interface CheckpointDelta {
  readonly type: "delta";
  readonly turn: number;
  readonly usage: RunCheckpoint["usage"];
  readonly status: RunCheckpoint["status"];
  readonly exitReason?: RunCheckpoint["exitReason"];
  readonly updatedAt: string;
  readonly tracePath: string | null;
  readonly historyLength: number;
  /** [position, message] for every position whose message is new or different. */
  readonly changes: readonly (readonly [number, ChatMessage])[];
  readonly pinnedFacts?: unknown;
  readonly completedToolCalls?: Readonly<Record<string, CompletedToolCall>>;
}

const count = z.number().int().nonnegative();

export const checkpointDeltaSchema: z.ZodType<CheckpointDelta> = z.object({
  type: z.literal("delta"),
  turn: count,
  usage: z.object({
    promptTokens: count,
    completionTokens: count,
    totalTokens: count,
    costUsd: z.number().nonnegative().nullable(),
  }),
  status: z.enum(["running", "finished", "stopped"]),
  exitReason: z.enum(EXIT_REASONS).exactOptional(),
  updatedAt: z.iso.datetime(),
  tracePath: z.string().nullable(),
  historyLength: count,
  changes: z.array(z.tuple([count, chatMessageSchema])),
  pinnedFacts: z.json().exactOptional(),
  completedToolCalls: z.record(z.string(), completedToolCallSchema).exactOptional(),
});

function sameToolCalls(a: readonly ToolCall[] | undefined, b: readonly ToolCall[] | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a.length !== b.length) return false;
  return a.every((call, index) => {
    const other = b[index];
    return (
      other !== undefined &&
      call.id === other.id &&
      call.function.name === other.function.name &&
      call.function.arguments === other.function.arguments
    );
  });
}

/** Equal content, compared field by field: a pruned copy of an unchanged message is not a change. */
export function sameMessage(a: ChatMessage, b: ChatMessage): boolean {
  if (a === b) return true;
  if (a.role !== b.role || a.content !== b.content) return false;
  if (a.role === "tool" && b.role === "tool") return a.tool_call_id === b.tool_call_id;
  if (a.role === "assistant" && b.role === "assistant") return sameToolCalls(a.tool_calls, b.tool_calls);
  return true;
}

function sameCompletedCalls(
  a: Readonly<Record<string, CompletedToolCall>>,
  b: Readonly<Record<string, CompletedToolCall>>,
): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => a[key] === b[key]);
}

/**
 * The delta that turns `previous` into `next`. `previousFactsJson` / `nextFactsJson` are the pinned
 * facts already serialised by the caller, who keeps the last one to avoid serialising twice.
 */
export function computeCheckpointDelta(
  previous: RunCheckpoint,
  next: RunCheckpoint,
  facts: { readonly previousJson: string; readonly nextJson: string },
): CheckpointDelta {
  const changes: [number, ChatMessage][] = [];
  const before = previous.history;
  const after = next.history;
  for (let index = 0; index < after.length; index += 1) {
    const message = after[index] as ChatMessage;
    const old = before[index];
    if (old === undefined || !sameMessage(old, message)) changes.push([index, message]);
  }
  return {
    type: "delta",
    turn: next.turn,
    usage: next.usage,
    status: next.status,
    ...(next.exitReason ? { exitReason: next.exitReason } : {}),
    updatedAt: next.updatedAt,
    tracePath: next.tracePath,
    historyLength: after.length,
    changes,
    ...(facts.previousJson === facts.nextJson ? {} : { pinnedFacts: next.pinnedFacts }),
    ...(sameCompletedCalls(previous.completedToolCalls, next.completedToolCalls)
      ? {}
      : { completedToolCalls: next.completedToolCalls }),
  };
}

/** Applies a delta; throws when it does not fit (a position past the new end, a hole left). */
export function applyCheckpointDelta(checkpoint: RunCheckpoint, delta: CheckpointDelta): RunCheckpoint {
  const history: (ChatMessage | undefined)[] = checkpoint.history.slice(0, delta.historyLength);
  for (const [index, message] of delta.changes) {
    if (index >= delta.historyLength) {
      throw new Error(
        `a change at position ${index} lies past the new history length ${delta.historyLength}`,
      );
    }
    history[index] = message;
  }
  for (let index = 0; index < delta.historyLength; index += 1) {
    if (history[index] === undefined) throw new Error(`the history has no message at position ${index}`);
  }
  const { exitReason: _previousExit, ...rest } = checkpoint;
  return {
    ...rest,
    turn: delta.turn,
    usage: delta.usage,
    status: delta.status,
    ...(delta.exitReason ? { exitReason: delta.exitReason } : {}),
    updatedAt: delta.updatedAt,
    tracePath: delta.tracePath,
    history: history as ChatMessage[],
    ...(delta.pinnedFacts === undefined ? {} : { pinnedFacts: delta.pinnedFacts }),
    ...(delta.completedToolCalls === undefined ? {} : { completedToolCalls: delta.completedToolCalls }),
  };
}
