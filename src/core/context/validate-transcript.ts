import type { ChatMessage } from "../model/model-types.js";

export type TranscriptValidation =
  { readonly success: true; readonly value: true } | { readonly success: false; readonly error: string };

/**
 * Checks the rules providers enforce on a chat transcript, so a transcript the harness rewrote
 * (pruned, compacted, resumed) is never rejected: a system message only first; the first other
 * message from the user; every tool call answered by exactly one tool message before the next
 * user or assistant message; no tool message without its call; call ids unique.
 */
export function validateTranscript(messages: readonly ChatMessage[]): TranscriptValidation {
  const fail = (index: number, reason: string): TranscriptValidation => ({
    success: false,
    error: `message ${index}: ${reason}`,
  });
  const seenCallIds = new Set<string>();
  let pending = new Set<string>();
  let pendingFrom = -1;
  let sawConversation = false;

  for (const [index, message] of messages.entries()) {
    if (message.role !== "tool" && pending.size > 0) {
      return fail(
        index,
        `${message.role} message before the tool call(s) ${[...pending].join(", ")} of message ${pendingFrom} were answered`,
      );
    }
    switch (message.role) {
      case "system":
        if (index !== 0) return fail(index, "a system message is only allowed as the first message");
        if (typeof message.content !== "string") return fail(index, "system content must be text");
        break;
      case "user":
        if (typeof message.content !== "string") return fail(index, "user content must be text");
        sawConversation = true;
        break;
      case "assistant": {
        if (!sawConversation)
          return fail(index, "the first message after the system prompt must be from the user");
        const calls = message.tool_calls;
        if (calls !== undefined && calls.length === 0) {
          return fail(index, "tool_calls is present but empty (omit it instead)");
        }
        if ((message.content === null || message.content === "") && calls === undefined) {
          return fail(index, "assistant message has neither content nor tool calls");
        }
        for (const call of calls ?? []) {
          if (call.id.length === 0) return fail(index, "a tool call has an empty id");
          if (call.function.name.length === 0)
            return fail(index, `tool call ${call.id} has no function name`);
          if (typeof call.function.arguments !== "string") {
            return fail(index, `tool call ${call.id} arguments must be a JSON string`);
          }
          if (seenCallIds.has(call.id)) return fail(index, `tool call id ${call.id} is used twice`);
          seenCallIds.add(call.id);
        }
        pending = new Set(calls?.map((call) => call.id) ?? []);
        pendingFrom = index;
        break;
      }
      case "tool":
        if (!sawConversation)
          return fail(index, "the first message after the system prompt must be from the user");
        if (!pending.has(message.tool_call_id)) {
          return seenCallIds.has(message.tool_call_id)
            ? fail(index, `tool call ${message.tool_call_id} is answered twice or after a later message`)
            : fail(
                index,
                `tool message answers ${message.tool_call_id}, which no preceding assistant message called`,
              );
        }
        if (typeof message.content !== "string") return fail(index, "tool content must be text");
        pending.delete(message.tool_call_id);
        break;
    }
  }
  if (pending.size > 0) {
    return fail(pendingFrom, `tool call(s) ${[...pending].join(", ")} are never answered`);
  }
  if (!sawConversation) return { success: false, error: "the transcript has no user message" };
  return { success: true, value: true };
}
