import { createHash } from "node:crypto";
import type {
  ChatCompletion,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from "openai/resources/chat/completions";
import type { CompletionUsage } from "openai/resources/completions";
import type { ChatMessage, FinishReason, TokenUsage, ToolCall, ToolDefinition } from "./model-types.js";
import { repairAssistantMessage } from "./repair-tool-arguments.js";

export function toSdkMessages(messages: readonly ChatMessage[]): ChatCompletionMessageParam[] {
  return messages.map((message): ChatCompletionMessageParam => {
    switch (message.role) {
      case "system":
      case "user":
        return { role: message.role, content: message.content };
      case "tool":
        return { role: "tool", tool_call_id: message.tool_call_id, content: message.content };
      case "assistant": {
        // Whatever the history holds (an old checkpoint, a resumed run), what goes out must parse.
        const toolCalls = repairAssistantMessage(message).message.tool_calls ?? [];
        if (toolCalls.length === 0) return { role: "assistant", content: message.content };
        return {
          role: "assistant",
          content: message.content,
          tool_calls: toolCalls.map((call) => ({
            id: call.id,
            type: "function",
            function: { name: call.function.name, arguments: call.function.arguments },
          })),
        };
      }
    }
  });
}

export function toSdkTools(tools: readonly ToolDefinition[]): ChatCompletionTool[] {
  return tools.map((tool) => ({
    type: "function",
    function: {
      name: tool.function.name,
      description: tool.function.description,
      parameters: { ...tool.function.parameters },
    },
  }));
}

const FINISH_REASONS: Readonly<Record<string, FinishReason>> = {
  stop: "stop",
  tool_calls: "tool_calls",
  // The pre-tools name of the same thing, still sent by some compatible servers.
  function_call: "tool_calls",
  length: "length",
  content_filter: "content_filter",
};

export function toFinishReason(reason: string | null | undefined): FinishReason {
  return (reason === null || reason === undefined ? undefined : FINISH_REASONS[reason]) ?? "unknown";
}

/** Usage is left at 0 when the server sends none; the caller then marks the cost unknown. */
export function toTokenUsage(usage: CompletionUsage | null | undefined): TokenUsage | undefined {
  if (usage === null || usage === undefined) return undefined;
  const cached = usage.prompt_tokens_details?.cached_tokens;
  return {
    promptTokens: usage.prompt_tokens,
    completionTokens: usage.completion_tokens,
    totalTokens: usage.total_tokens,
    ...(cached === undefined || cached === 0 ? {} : { cachedPromptTokens: cached }),
  };
}

export const EMPTY_USAGE: TokenUsage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };

export interface RawToolCall {
  readonly id: string | undefined;
  readonly name: string;
  readonly arguments: string;
}

/**
 * Some OpenAI-compatible servers omit tool-call ids. The loop needs one to pair each result with
 * its call, and a replayed run must produce the same one, so it is derived from the call itself
 * and the transcript length (which differs on every turn).
 */
export function toToolCalls(raw: readonly RawToolCall[], transcriptLength: number): ToolCall[] {
  return raw.map((call, index) => ({
    id: call.id !== undefined && call.id !== "" ? call.id : generateToolCallId(transcriptLength, index, call),
    type: "function",
    // Arguments stay exactly as the model wrote them, valid JSON or not: the tool registry
    // reports malformed ones to the model as INVALID_ARGUMENTS quoting the raw text.
    function: { name: call.name, arguments: call.arguments },
  }));
}

function generateToolCallId(transcriptLength: number, index: number, call: RawToolCall): string {
  const digest = createHash("sha256")
    .update(`${transcriptLength}\u0000${index}\u0000${call.name}\u0000${call.arguments}`)
    .digest("hex");
  return `call_${digest.slice(0, 24)}`;
}

export interface ParsedAnswer {
  readonly content: string | null;
  readonly toolCalls: readonly RawToolCall[];
  readonly finishReason: FinishReason;
  readonly usage: TokenUsage | undefined;
  /** Set when the response has no choice at all, which no retry of ours can interpret. */
  readonly isEmpty: boolean;
}

export function fromCompletion(completion: ChatCompletion): ParsedAnswer {
  const choice = completion.choices[0];
  const usage = toTokenUsage(completion.usage);
  if (choice === undefined) {
    return { content: null, toolCalls: [], finishReason: "unknown", usage, isEmpty: true };
  }
  const toolCalls: RawToolCall[] = [];
  for (const call of choice.message.tool_calls ?? []) {
    // Custom (free-text) tools are never offered by the harness, so only function calls count.
    if (call.type !== "function") continue;
    // Typed as always present, but loosely compatible servers do omit them.
    const fields: Partial<typeof call.function> & { id?: string } = { ...call.function, id: call.id };
    toolCalls.push({
      id: fields.id,
      name: fields.name ?? "",
      arguments: fields.arguments ?? "",
    });
  }
  return {
    content: choice.message.content,
    toolCalls,
    finishReason: toFinishReason(choice.finish_reason),
    usage,
    isEmpty: false,
  };
}
