import { z } from "zod";
import type { ChatMessage, ToolCall } from "../model/model-types.js";
import { EXIT_REASONS, type ExitReason } from "../loop/loop-events.js";
import type { ApprovalMode } from "../policy/approval-mode.js";
import { APPROVAL_MODES } from "../policy/approval-mode.js";
import type { SchemaSpec } from "./schema-version.js";

export const CHECKPOINT_SCHEMA: SchemaSpec = { kind: "checkpoint", version: 1 };

/** The serializable part of an RunInput (no AbortSignal), enough to start the run again. */
export interface StoredRunInput {
  readonly prompt: string;
  readonly workspaceRoot: string;
  readonly readOnlyPaths?: readonly string[];
  readonly mode: "build" | "plan";
  readonly approvalMode: ApprovalMode;
  readonly allowPrefixes: readonly string[];
  readonly maxTurns?: number;
  readonly untrustedInputs?: readonly { readonly source: string; readonly text: string }[];
  readonly repositoryInstructions?: string;
  /** The model the run asked for, when it was not the runner's own. */
  readonly model?: string;
  /** Anything else the loop needs to continue (model, context window...); opaque here. */
  readonly settings?: Readonly<Record<string, unknown>>;
}

/** A finished tool call: its result is reused on resume instead of running the tool again. */
export interface CompletedToolCall {
  readonly name: string;
  /** The ToolResult as JSON; opaque to persistence. */
  readonly result: unknown;
  /** The exact tool message the model was given, when the loop stored it. */
  readonly content?: string;
}

export type RunStatus = "running" | "finished" | "stopped";

export interface RunCheckpoint {
  readonly runId: string;
  readonly task: StoredRunInput;
  readonly turn: number;
  readonly history: readonly ChatMessage[];
  /** The context manager's pinned facts; opaque here. */
  readonly pinnedFacts: unknown;
  readonly usage: {
    readonly promptTokens: number;
    readonly completionTokens: number;
    readonly totalTokens: number;
    /** Null when a call had no known price. */
    readonly costUsd: number | null;
  };
  readonly completedToolCalls: Readonly<Record<string, CompletedToolCall>>;
  readonly tracePath: string | null;
  readonly status: RunStatus;
  readonly exitReason?: ExitReason;
  /** ISO 8601. */
  readonly updatedAt: string;
}

const toolCallSchema: z.ZodType<ToolCall> = z.object({
  id: z.string(),
  type: z.literal("function"),
  function: z.object({ name: z.string(), arguments: z.string() }),
});

export const chatMessageSchema: z.ZodType<ChatMessage> = z.discriminatedUnion("role", [
  z.object({ role: z.literal("system"), content: z.string() }),
  z.object({ role: z.literal("user"), content: z.string() }),
  z.object({
    role: z.literal("assistant"),
    content: z.string().nullable(),
    tool_calls: z.array(toolCallSchema).exactOptional(),
  }),
  z.object({ role: z.literal("tool"), tool_call_id: z.string(), content: z.string() }),
]);

const count = z.number().int().nonnegative();

export const completedToolCallSchema: z.ZodType<CompletedToolCall> = z.object({
  name: z.string(),
  result: z.json(),
  content: z.string().exactOptional(),
});

const taskSchema: z.ZodType<StoredRunInput> = z.object({
  prompt: z.string(),
  workspaceRoot: z.string(),
  readOnlyPaths: z.array(z.string()).exactOptional(),
  mode: z.enum(["build", "plan"]),
  approvalMode: z.enum(APPROVAL_MODES),
  allowPrefixes: z.array(z.string()),
  maxTurns: count.exactOptional(),
  untrustedInputs: z.array(z.object({ source: z.string(), text: z.string() })).exactOptional(),
  repositoryInstructions: z.string().exactOptional(),
  model: z.string().min(1).exactOptional(),
  settings: z.record(z.string(), z.json()).exactOptional(),
});

export const runCheckpointSchema: z.ZodType<RunCheckpoint> = z.object({
  runId: z.string(),
  task: taskSchema,
  turn: count,
  history: z.array(chatMessageSchema),
  pinnedFacts: z.json(),
  usage: z.object({
    promptTokens: count,
    completionTokens: count,
    totalTokens: count,
    costUsd: z.number().nonnegative().nullable(),
  }),
  completedToolCalls: z.record(z.string(), completedToolCallSchema),
  tracePath: z.string().nullable(),
  status: z.enum(["running", "finished", "stopped"]),
  exitReason: z.enum(EXIT_REASONS).exactOptional(),
  updatedAt: z.iso.datetime(),
});
