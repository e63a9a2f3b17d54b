import type { OpenAI } from "openai";
import { APIUserAbortError } from "openai";
import type { ChatCompletionCreateParamsBase } from "openai/resources/chat/completions";
import { createStreamAccumulator } from "./accumulate-stream.js";
import type { ParsedAnswer } from "./convert-messages.js";
import { fromCompletion, toSdkMessages, toSdkTools } from "./convert-messages.js";
import { ModelError } from "./model-error.js";
import type { GenerationSettings, ModelRequest } from "./model-types.js";
import { toModelError } from "./to-model-error.js";
import { linkAbortSignals } from "./link-abort-signals.js";

export interface AttemptSettings {
  readonly sdk: OpenAI;
  readonly baseURL: string;
  readonly inferenceMs: number;
  readonly httpMs: number;
  readonly now: () => number;
  readonly generation: GenerationSettings;
}

/**
 * One HTTP attempt against one model. Two clocks guard it: the SDK's `timeout` (httpMs) covers
 * connecting and waiting for response headers; our inference deadline covers the whole attempt
 * including a long streamed body, which the SDK's timer no longer watches once headers arrive.
 * Every failure leaves as a classified ModelError.
 */
export async function requestCompletion(
  settings: AttemptSettings,
  model: string,
  request: ModelRequest,
  callerSignal: AbortSignal | undefined,
  onTextDelta: ((text: string) => void) | undefined,
): Promise<ParsedAnswer> {
  const deadline = new AbortController();
  let isDeadlineExceeded = false;
  const timer = setTimeout(() => {
    isDeadlineExceeded = true;
    deadline.abort();
  }, settings.inferenceMs);
  const linked = linkAbortSignals(callerSignal, deadline);
  const signal = linked.signal;
  try {
    const answer = await send(settings, model, request, signal, onTextDelta);
    if (answer.isEmpty) {
      throw new ModelError(
        "MODEL_BAD_RESPONSE",
        `model ${model} at ${settings.baseURL} answered without any choice.`,
        true,
      );
    }
    return answer;
  } catch (error: unknown) {
    throw toModelError(error, {
      model,
      baseURL: settings.baseURL,
      callerSignal,
      isDeadlineExceeded,
      inferenceMs: settings.inferenceMs,
      httpMs: settings.httpMs,
      now: settings.now,
    });
  } finally {
    clearTimeout(timer);
    linked.unlink();
  }
}

async function send(
  settings: AttemptSettings,
  model: string,
  request: ModelRequest,
  signal: AbortSignal,
  onTextDelta: ((text: string) => void) | undefined,
): Promise<ParsedAnswer> {
  const { sdk } = settings;
  const base: ChatCompletionCreateParamsBase = {
    model,
    messages: toSdkMessages(request.messages),
  };
  const maxOutputTokens = request.maxOutputTokens ?? settings.generation.maxOutputTokens;
  if (maxOutputTokens !== undefined) {
    // OpenAI's own API refuses max_tokens for its reasoning models; every compatible server
    // (llama.cpp, vLLM, Ollama) reads max_tokens.
    if (isOpenAIHost(settings.baseURL)) base.max_completion_tokens = maxOutputTokens;
    else base.max_tokens = maxOutputTokens;
  }
  if (settings.generation.temperature !== undefined) base.temperature = settings.generation.temperature;
  // Servers reject tool_choice without tools, so both are sent only when there are tools.
  if (request.tools.length > 0) {
    base.tools = toSdkTools(request.tools);
    base.tool_choice = request.toolChoice ?? "auto";
  }
  const isStreaming = request.stream ?? onTextDelta !== undefined;
  if (!isStreaming) {
    const completion = await sdk.chat.completions.create({ ...base, stream: false }, { signal });
    return fromCompletion(completion);
  }
  const stream = await sdk.chat.completions.create(
    { ...base, stream: true, stream_options: { include_usage: true } },
    { signal },
  );
  const accumulator = createStreamAccumulator(onTextDelta);
  for await (const chunk of stream) accumulator.add(chunk);
  // The SDK ends the iteration quietly when its signal aborts mid-stream; a cut answer must
  // not pass for a complete one.
  if (signal.aborted) throw new APIUserAbortError();
  return accumulator.finish();
}

function isOpenAIHost(baseURL: string): boolean {
  return URL.canParse(baseURL) && new URL(baseURL).hostname === "api.openai.com";
}
