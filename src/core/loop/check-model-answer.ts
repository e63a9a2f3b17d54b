import type { ChatMessage } from "../model/model-types.js";
import { ModelError } from "../model/model-error.js";
import { validateTranscript } from "../context/validate-transcript.js";
import { LoopError } from "./loop-error.js";

/** The fix for a server that cannot take tools; the doctor names it too. */
export const TOOLS_UNSUPPORTED_FIX =
  "Start llama-server with --jinja, give it a chat template that supports tools (--chat-template-file), or use another model.";

/** Stops before the first request when the server said its template cannot take tools. */
export function toolsUnsupportedByServer(model: string): ModelError {
  return new ModelError(
    "MODEL_TOOLS_UNSUPPORTED",
    `The server reports that its chat template for ${model} does not support tools (chat_template_caps in /props), so it would drop every tool. ${TOOLS_UNSUPPORTED_FIX}`,
    false,
  );
}

/*
 * The markers chat templates use for a tool call (Hermes/Qwen, Llama 3, Mistral, functionary).
 * In the text of an answer they mean the server did not parse the model's calls.
 */
const TOOL_CALL_MARKUP = /<tool_call>|<\|tool_call\|?>|<\|python_tag\|>|\[TOOL_CALLS\]|<function=/;

/** A text answer that carries tool-call markup: the model called, the server did not parse it. */
export function toolMarkupInText(model: string, text: string | null): ModelError | undefined {
  if (text === null) return undefined;
  const marker = TOOL_CALL_MARKUP.exec(text)?.[0];
  if (marker === undefined) return undefined;
  return new ModelError(
    "MODEL_TOOLS_UNSUPPORTED",
    `${model} wrote a tool call as text (${marker}) and the server did not turn it into a tool call: its chat template does not support tool calls for this model. ${TOOLS_UNSUPPORTED_FIX}`,
    false,
  );
}

/** Invariants every server enforces; a transcript that breaks one is never sent. */
export function assertSendable(messages: readonly ChatMessage[]): void {
  const checked = validateTranscript(messages);
  if (!checked.success) {
    throw new LoopError("TRANSCRIPT_INVALID", `The transcript to send is not valid: ${checked.error}.`);
  }
}
