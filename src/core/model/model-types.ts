/**
 * The transcript format of the core: OpenAI chat-completions messages, kept minimal so every
 * OpenAI-compatible endpoint accepts them.
 */
export interface ToolCall {
  readonly id: string;
  readonly type: "function";
  readonly function: { readonly name: string; readonly arguments: string };
}

export type ChatMessage =
  | { readonly role: "system"; readonly content: string }
  | { readonly role: "user"; readonly content: string }
  | {
      readonly role: "assistant";
      readonly content: string | null;
      readonly tool_calls?: readonly ToolCall[];
    }
  | { readonly role: "tool"; readonly tool_call_id: string; readonly content: string };

export interface ToolDefinition {
  readonly type: "function";
  readonly function: {
    readonly name: string;
    readonly description: string;
    readonly parameters: Readonly<Record<string, unknown>>;
  };
}

export interface TokenUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly totalTokens: number;
  /** Prompt tokens the provider served from its cache (billed cheaper); part of promptTokens. */
  readonly cachedPromptTokens?: number;
}

export interface ModelRequest {
  readonly messages: readonly ChatMessage[];
  readonly tools: readonly ToolDefinition[];
  /** "none" forces a text answer (used after a loop is detected). */
  readonly toolChoice?: "auto" | "none";
  readonly stream?: boolean;
  /** Overrides the client's output cap for this request (sent as max_tokens). */
  readonly maxOutputTokens?: number;
}

/** Sampling settings sent with every request; unset ones are left to the server. */
export interface GenerationSettings {
  /** The most tokens one answer may have (sent as max_tokens). */
  readonly maxOutputTokens?: number;
  readonly temperature?: number;
}

/** What the endpoint said about itself (see probe-model-server.ts); unknown fields stay unset. */
export interface ModelCapabilities {
  /** Tokens one request may hold, as the server reports it. */
  readonly contextWindow?: number;
  /** False when the server reports that its chat template cannot take tools. */
  readonly supportsTools?: boolean;
}

export type FinishReason = "stop" | "tool_calls" | "length" | "content_filter" | "unknown";

export interface ModelResponse {
  readonly message: Extract<ChatMessage, { role: "assistant" }>;
  readonly finishReason: FinishReason;
  readonly usage: TokenUsage;
  /** The model that answered (after fallbacks). */
  readonly model: string;
  readonly costUsd: number;
  /**
   * False when costUsd is 0 because the model has no price in the table or the server reported
   * no usage (the usage numbers are then 0 too: nothing is estimated).
   */
  readonly costKnown?: boolean;
  readonly attempts: number;
}

export interface ModelCallOptions {
  readonly signal?: AbortSignal;
  readonly onTextDelta?: (text: string) => void;
  /** Told about every retry and fallback so the loop can emit events and trace them. */
  readonly onRetry?: (info: {
    readonly model: string;
    readonly attempt: number;
    readonly delayMs: number;
    readonly reason: string;
  }) => void;
  readonly onFallback?: (info: {
    readonly from: string;
    readonly to: string;
    readonly reason: string;
  }) => void;
}

/** The seam between the loop and any model: the openai adapter and test fakes implement it. */
export interface ModelClient {
  readonly model: string;
  readonly capabilities?: ModelCapabilities;
  complete(request: ModelRequest, options?: ModelCallOptions): Promise<ModelResponse>;
}
