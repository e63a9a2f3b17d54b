import type { ChatMessage, ToolCall } from "../model/model-types.js";

/**
 * In a valid transcript, cutting right before any message that is not a tool message keeps every
 * tool call together with its results: results always follow their call before the next
 * user or assistant message. These are the only places the history may be cut.
 */
export function isTurnBoundary(history: readonly ChatMessage[], index: number): boolean {
  const message = history[index];
  return message !== undefined && message.role !== "tool";
}

/**
 * Where the latest `keepTurns` assistant turns begin (including the user messages that prompted
 * the first of them). 0 when the history holds no more than that many turns.
 */
export function findRecentTurnsStart(history: readonly ChatMessage[], keepTurns: number): number {
  if (keepTurns <= 0) return history.length;
  let seen = 0;
  let start = -1;
  for (let index = history.length - 1; index >= 0; index -= 1) {
    if (history[index]?.role === "assistant") {
      seen += 1;
      if (seen === keepTurns) {
        start = index;
        break;
      }
    }
  }
  if (start <= 0) return 0;
  while (start > 0 && history[start - 1]?.role === "user") start -= 1;
  return start;
}

/** The tool calls of the history by id, to describe an observation by the call that produced it. */
export function indexToolCalls(history: readonly ChatMessage[]): Map<string, ToolCall> {
  const calls = new Map<string, ToolCall>();
  for (const message of history) {
    if (message.role === "assistant") for (const call of message.tool_calls ?? []) calls.set(call.id, call);
  }
  return calls;
}

/**
 * Indices of the tool messages after the last assistant message: the model has not read them yet,
 * so they are never replaced behind its back (a user message may follow them).
 */
export function findUnseenObservations(history: readonly ChatMessage[]): Set<number> {
  const unseen = new Set<number>();
  for (let index = history.length - 1; index >= 0; index -= 1) {
    const role = history[index]?.role;
    if (role === "assistant") break;
    if (role === "tool") unseen.add(index);
  }
  return unseen;
}
