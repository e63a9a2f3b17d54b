import type { ChatRequestBody } from "./chat-request-body.js";
import type { MockStep } from "./mock-script.js";

type AnswerStep = Extract<MockStep, { type: "text" } | { type: "tool_calls" }>;

interface RenderedToolCall {
  readonly id: string;
  readonly type: "function";
  readonly function: { readonly name: string; readonly arguments: string };
}

interface Usage {
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
  readonly total_tokens: number;
  readonly prompt_tokens_details?: { readonly cached_tokens: number };
}

export interface AnswerContext {
  readonly body: ChatRequestBody;
  /** 1-based number of the request, to make ids unique and predictable. */
  readonly requestNumber: number;
  readonly created: number;
  /** The server's own count of the prompt, when the server was given a tokenizer. */
  readonly promptTokens?: number;
}

const TEXT_CHUNK_LENGTH = 8;
const ARGUMENT_PIECES = 3;

function toolCallsOf(step: AnswerStep, requestNumber: number): RenderedToolCall[] {
  if (step.type === "text") return [];
  return step.calls.map((call, index) => ({
    id: call.id ?? `call_mock_${requestNumber}_${index}`,
    type: "function",
    function: {
      name: call.name,
      // A string goes out untouched so a script can send malformed JSON on purpose.
      arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
    },
  }));
}

/** Roughly four characters a token: good enough to exercise usage and cost accounting. */
function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

function usageOf(step: AnswerStep, context: AnswerContext, toolCalls: RenderedToolCall[]): Usage | undefined {
  if (step.usage === null) return undefined;
  if (step.usage !== undefined) {
    return {
      prompt_tokens: step.usage.prompt_tokens,
      completion_tokens: step.usage.completion_tokens,
      total_tokens: step.usage.prompt_tokens + step.usage.completion_tokens,
      ...(step.usage.cached_tokens === undefined
        ? {}
        : { prompt_tokens_details: { cached_tokens: step.usage.cached_tokens } }),
    };
  }
  // A server counts the tool schemas it was sent as prompt too.
  const prompt =
    context.promptTokens ??
    estimateTokens(JSON.stringify(context.body.messages) + JSON.stringify(context.body.tools ?? []));
  const output =
    (step.text ?? "") + toolCalls.map((call) => call.function.name + call.function.arguments).join("");
  const completion = Math.max(1, estimateTokens(output));
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

function finishReasonOf(step: AnswerStep, toolCalls: readonly RenderedToolCall[]): string {
  if (step.finish_reason !== undefined) return step.finish_reason;
  return toolCalls.length > 0 ? "tool_calls" : "stop";
}

export function renderCompletion(step: AnswerStep, context: AnswerContext): Record<string, unknown> {
  const toolCalls = toolCallsOf(step, context.requestNumber);
  const usage = usageOf(step, context, toolCalls);
  return {
    id: `chatcmpl-mock-${context.requestNumber}`,
    object: "chat.completion",
    created: context.created,
    model: context.body.model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: step.text ?? null,
          refusal: null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        logprobs: null,
        finish_reason: finishReasonOf(step, toolCalls),
      },
    ],
    ...(usage === undefined ? {} : { usage }),
  };
}

function splitInto(text: string, pieces: number): string[] {
  if (text.length < pieces) return [text];
  const size = Math.ceil(text.length / pieces);
  const parts: string[] = [];
  for (let start = 0; start < text.length; start += size) parts.push(text.slice(start, start + size));
  return parts;
}

/**
 * The chunks of a streamed answer, shaped like OpenAI's: a role chunk, content in small pieces,
 * each tool call opened with id and name and its arguments split across several chunks, a
 * finish chunk, then (when asked with include_usage) a usage chunk with no choices.
 */
export function renderChunks(step: AnswerStep, context: AnswerContext): Record<string, unknown>[] {
  const toolCalls = toolCallsOf(step, context.requestNumber);
  const usage = usageOf(step, context, toolCalls);
  const base = {
    id: `chatcmpl-mock-${context.requestNumber}`,
    object: "chat.completion.chunk",
    created: context.created,
    model: context.body.model,
  };
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  });
  const chunks: Record<string, unknown>[] = [chunk({ role: "assistant", content: "" })];
  const text = step.text ?? "";
  for (let start = 0; start < text.length; start += TEXT_CHUNK_LENGTH) {
    chunks.push(chunk({ content: text.slice(start, start + TEXT_CHUNK_LENGTH) }));
  }
  for (const [index, call] of toolCalls.entries()) {
    chunks.push(
      chunk({
        tool_calls: [
          { index, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } },
        ],
      }),
    );
    for (const piece of splitInto(call.function.arguments, ARGUMENT_PIECES)) {
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  }
  chunks.push(chunk({}, finishReasonOf(step, toolCalls)));
  if (usage !== undefined && context.body.stream_options?.include_usage === true) {
    chunks.push({ ...base, choices: [], usage });
  }
  return chunks;
}
