import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import type { ParsedAnswer, RawToolCall } from "./convert-messages.js";
import { toFinishReason, toTokenUsage } from "./convert-messages.js";
import type { TokenUsage } from "./model-types.js";

interface PartialToolCall {
  id: string | undefined;
  name: string;
  arguments: string;
}

/**
 * Folds streamed chunks into one answer. Tool calls arrive as fragments keyed by `index`: the
 * first fragment usually carries id and name, later ones only pieces of the arguments string,
 * which may split anywhere (even inside a JSON string or a multi-byte character's escape).
 */
export function createStreamAccumulator(onTextDelta?: (text: string) => void): {
  add(chunk: ChatCompletionChunk): void;
  finish(): ParsedAnswer;
} {
  let content = "";
  let hasContent = false;
  let finishReason: string | null = null;
  let usage: TokenUsage | undefined;
  let hasChoice = false;
  const toolCalls = new Map<number, PartialToolCall>();

  return {
    add(chunk) {
      const chunkUsage = toTokenUsage(chunk.usage);
      if (chunkUsage !== undefined) usage = chunkUsage;
      for (const choice of chunk.choices) {
        if (choice.index !== 0) continue;
        hasChoice = true;
        if (choice.finish_reason !== null) finishReason = choice.finish_reason;
        const delta = choice.delta;
        if (typeof delta.content === "string" && delta.content !== "") {
          content += delta.content;
          hasContent = true;
          onTextDelta?.(delta.content);
        }
        for (const fragment of delta.tool_calls ?? []) {
          const current = toolCalls.get(fragment.index) ?? {
            id: undefined,
            name: "",
            arguments: "",
          };
          if (fragment.id !== undefined && fragment.id !== "") current.id = fragment.id;
          current.name += fragment.function?.name ?? "";
          current.arguments += fragment.function?.arguments ?? "";
          toolCalls.set(fragment.index, current);
        }
      }
    },
    finish() {
      const ordered: RawToolCall[] = [...toolCalls.entries()]
        .sort(([left], [right]) => left - right)
        .map(([, call]) => ({ id: call.id, name: call.name, arguments: call.arguments }));
      return {
        content: hasContent ? content : null,
        toolCalls: ordered,
        finishReason: toFinishReason(finishReason),
        usage,
        isEmpty: !hasChoice,
      };
    },
  };
}
