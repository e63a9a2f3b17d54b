import type { ChatMessage, ModelResponse } from "../model/model-types.js";
import { repairAssistantMessage } from "../model/repair-tool-arguments.js";
import type { LoopEvent } from "./loop-events.js";

/** Cut-off answers in a row after which the run stops instead of asking again. */
export const MAX_CONSECUTIVE_TRUNCATIONS = 3;

const CONTINUE_NOTICE =
  "Your answer was cut off at the output-token limit. Continue exactly where it stopped, without repeating what you already wrote.";

const NO_TEXT_PLACEHOLDER = "(The answer was cut off at the output-token limit before any text.)";

/**
 * An answer that ended with `finish_reason: "length"` is neither a final answer nor a set of
 * calls to run: cut-off calls are answered with a tool result that says they were not run; cut-off
 * text is kept and the model is asked to continue. Returns the text to carry into the final answer.
 */
export function recordTruncatedAnswer(
  response: ModelResponse,
  history: ChatMessage[],
  emit: (event: LoopEvent) => void,
  turn: number,
): string {
  const { message } = response;
  const calls = message.tool_calls ?? [];
  if (calls.length > 0) {
    history.push(repairAssistantMessage(message).message);
    for (const call of calls) {
      const reason = `cut off at the output-token limit while writing its arguments (${call.function.arguments.length} characters arrived)`;
      emit({ type: "tool-call-refused", turn, callId: call.id, name: call.function.name, reason });
      history.push({
        role: "tool",
        tool_call_id: call.id,
        content: `Not run: this call was ${reason}. Make it again with shorter arguments (for a large file, write it in several smaller edits).`,
      });
    }
    return "";
  }
  const text = message.content ?? "";
  history.push({ role: "assistant", content: text === "" ? NO_TEXT_PLACEHOLDER : text });
  history.push({ role: "user", content: CONTINUE_NOTICE });
  return text;
}

export function describeRepeatedTruncation(): string {
  return `The model's answer was cut off at the output-token limit ${MAX_CONSECUTIVE_TRUNCATIONS} times in a row: raise max_output_tokens in the operator config (or --max-output-tokens), or ask for less in one answer.`;
}
