import type { ChatRequestBody } from "./chat-request-body.js";

/**
 * How much the mock behaves like a real inference server (llama.cpp's `llama-server` by default):
 * what it reports about itself and which requests it refuses the way real servers do.
 */
export interface MockServerProfile {
  /** The context size reported in `/v1/models` and `/props`; longer prompts get llama.cpp's 400. */
  readonly contextWindow?: number;
  /** `chat_template_caps.supports_tools` in `/props`. */
  readonly supportsTools?: boolean;
  /** The server's count of a request's prompt tokens (default: about 4 characters a token). */
  readonly countPromptTokens?: (body: ChatRequestBody) => number;
  /** Accept echoed tool-call arguments that are not JSON (default: refuse with HTTP 500, as llama.cpp does). */
  readonly acceptInvalidToolArguments?: boolean;
}

export interface ServerRefusal {
  readonly status: number;
  readonly body: unknown;
}

export function countPromptTokensOf(profile: MockServerProfile, body: ChatRequestBody): number {
  return profile.countPromptTokens?.(body) ?? Math.ceil(JSON.stringify(body.messages).length / 4);
}

/** What llama.cpp answers before generating anything: unparsable echoed arguments, then the context size. */
export function refuseLikeRealServer(
  profile: MockServerProfile,
  body: ChatRequestBody,
): ServerRefusal | undefined {
  if (profile.acceptInvalidToolArguments !== true) {
    for (const message of body.messages) {
      for (const call of message.tool_calls ?? []) {
        const problem = jsonProblem(call.function.arguments);
        if (problem === undefined) continue;
        return {
          status: 500,
          body: {
            error: {
              code: 500,
              message: `Failed to parse tool call arguments as JSON: ${problem}`,
              type: "server_error",
            },
          },
        };
      }
    }
  }
  const window = profile.contextWindow;
  if (window === undefined) return undefined;
  const promptTokens = countPromptTokensOf(profile, body);
  if (promptTokens < window) return undefined;
  return {
    status: 400,
    body: {
      error: {
        code: 400,
        message: `request (${promptTokens} tokens) exceeds the available context size (${window} tokens), try increasing it`,
        type: "exceed_context_size_error",
        n_prompt_tokens: promptTokens,
        n_ctx: window,
      },
    },
  };
}

function jsonProblem(text: string): string | undefined {
  try {
    JSON.parse(text);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** `/v1/models` in llama.cpp's shape: the context under `meta` when the profile has one. */
export function renderModelList(profile: MockServerProfile, names: readonly string[]): unknown {
  return {
    object: "list",
    data: names.map((id) => ({
      id,
      object: "model",
      created: 0,
      owned_by: "agentforge-mock",
      ...(profile.contextWindow === undefined
        ? {}
        : { meta: { n_ctx: profile.contextWindow, n_ctx_train: profile.contextWindow * 8 } }),
    })),
  };
}

/** llama.cpp's `/props`, served only when the profile says something a real server would. */
export function renderProps(profile: MockServerProfile, names: readonly string[]): unknown {
  if (profile.contextWindow === undefined && profile.supportsTools === undefined) return undefined;
  return {
    default_generation_settings: { n_ctx: profile.contextWindow ?? 4096, params: {} },
    total_slots: 1,
    model_alias: names[0] ?? "mock-model",
    chat_template_caps: {
      supports_tools: profile.supportsTools ?? true,
      supports_tool_calls: profile.supportsTools ?? true,
      supports_parallel_tool_calls: profile.supportsTools ?? true,
      supports_system_role: true,
    },
  };
}
