import { z } from "zod";

/**
 * What the mock server understands of a chat-completions request. Loose on purpose: it records
 * whatever a client sends and checks only what it needs to answer.
 */
const recordedToolCallSchema = z.looseObject({
  id: z.string(),
  type: z.string().optional(),
  function: z.looseObject({ name: z.string(), arguments: z.string() }),
});

const recordedMessageSchema = z.looseObject({
  role: z.string(),
  content: z.unknown().optional(),
  tool_calls: z.array(recordedToolCallSchema).optional(),
  tool_call_id: z.string().optional(),
});

export const chatRequestBodySchema = z.looseObject({
  model: z.string().min(1),
  messages: z.array(recordedMessageSchema),
  stream: z.boolean().nullable().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullable().optional(),
  tools: z.array(z.unknown()).optional(),
  tool_choice: z.unknown().optional(),
});

export type ChatRequestBody = z.infer<typeof chatRequestBodySchema>;
export type RecordedMessage = z.infer<typeof recordedMessageSchema>;

export interface ToolCallPairing {
  /** Ids of assistant tool calls that no later tool message answers. */
  readonly unanswered: readonly string[];
  /** tool_call_ids of tool messages that answer no earlier call (or answer one twice). */
  readonly orphaned: readonly string[];
}

/**
 * Checks the invariant every chat-completions endpoint enforces: each tool call of an
 * assistant message is answered by exactly one tool message before the next assistant turn.
 */
export function checkToolCallPairing(messages: readonly RecordedMessage[]): ToolCallPairing {
  const unanswered: string[] = [];
  const orphaned: string[] = [];
  let open = new Set<string>();
  for (const message of messages) {
    if (message.role === "tool") {
      const id = message.tool_call_id ?? "";
      if (open.has(id)) open.delete(id);
      else orphaned.push(id);
      continue;
    }
    unanswered.push(...open);
    open = new Set((message.role === "assistant" ? message.tool_calls : undefined)?.map((call) => call.id));
  }
  unanswered.push(...open);
  return { unanswered, orphaned };
}
