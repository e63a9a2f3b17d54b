import type { ChatMessage, ToolCall } from "./model-types.js";

type AssistantMessage = Extract<ChatMessage, { role: "assistant" }>;

/** What an echoed call carries in place of arguments that are not a JSON object. */
export const REPAIRED_ARGUMENTS = "{}";

/**
 * Servers re-parse the arguments of every echoed tool call (llama.cpp answers HTTP 500 "Failed to
 * parse tool call arguments as JSON" for the whole transcript), so a call whose arguments are not
 * one JSON object cannot be sent back as the model wrote it. Blank arguments mean "no arguments".
 */
export function isEchoableArguments(raw: string): boolean {
  if (raw.trim() === "") return false;
  try {
    const value: unknown = JSON.parse(raw);
    return value !== null && typeof value === "object" && !Array.isArray(value);
  } catch (error) {
    if (error instanceof SyntaxError) return false;
    throw error;
  }
}

export interface RepairedAssistantMessage {
  readonly message: AssistantMessage;
  /** Ids of the calls whose arguments were replaced by `{}`. */
  readonly repairedCallIds: readonly string[];
}

/**
 * The message as it can be sent back: calls with arguments that are not a JSON object carry `{}`
 * instead (the original stays in the trace and is quoted in the call's tool result).
 */
export function repairAssistantMessage(message: AssistantMessage): RepairedAssistantMessage {
  const calls = message.tool_calls;
  if (calls === undefined) return { message, repairedCallIds: [] };
  const repairedCallIds: string[] = [];
  const repaired = calls.map((call): ToolCall => {
    if (isEchoableArguments(call.function.arguments)) return call;
    repairedCallIds.push(call.id);
    return { ...call, function: { name: call.function.name, arguments: REPAIRED_ARGUMENTS } };
  });
  if (repairedCallIds.length === 0) return { message, repairedCallIds };
  return { message: { ...message, tool_calls: repaired }, repairedCallIds };
}
