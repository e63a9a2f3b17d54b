import type { ModelClient, ModelRequest, ModelResponse, ToolCall } from "../../src/core/model/model-types.js";
import type { ModelError } from "../../src/core/model/model-error.js";

/** One scripted answer: text, tool calls, or a failure. */
export type ScriptedTurn =
  | { readonly text: string }
  | {
      readonly calls: readonly {
        readonly name: string;
        readonly args: unknown;
        readonly id?: string;
      }[];
      readonly text?: string;
    }
  | { readonly error: ModelError };

/** A fake model passed in, not patched in: answers from a script and records every request. */
export function createScriptedModel(
  script: readonly ScriptedTurn[],
  options: {
    readonly promptTokens?: number;
    readonly completionTokens?: number;
    readonly costUsd?: number;
  } = {},
) {
  const requests: ModelRequest[] = [];
  let index = 0;
  let callCounter = 0;
  const client: ModelClient & { requests: ModelRequest[]; remaining(): number } = {
    model: "scripted",
    requests,
    remaining: () => script.length - index,
    async complete(request: ModelRequest): Promise<ModelResponse> {
      requests.push({
        ...request,
        messages: request.messages.map((message) => ({ ...message })),
      });
      const turn = script[index++];
      if (!turn) throw new Error(`scripted model exhausted after ${script.length} turns`);
      if ("error" in turn) throw turn.error;
      const toolCalls: ToolCall[] | undefined =
        "calls" in turn
          ? turn.calls.map((call) => ({
              id: call.id ?? `call_${++callCounter}`,
              type: "function" as const,
              function: {
                name: call.name,
                arguments: typeof call.args === "string" ? call.args : JSON.stringify(call.args),
              },
            }))
          : undefined;
      const content = "text" in turn && turn.text !== undefined ? turn.text : null;
      return {
        message: { role: "assistant", content, ...(toolCalls ? { tool_calls: toolCalls } : {}) },
        finishReason: toolCalls ? "tool_calls" : "stop",
        usage: {
          promptTokens: options.promptTokens ?? 100,
          completionTokens: options.completionTokens ?? 10,
          totalTokens: (options.promptTokens ?? 100) + (options.completionTokens ?? 10),
        },
        model: "scripted",
        costUsd: options.costUsd ?? 0.001,
        attempts: 1,
      };
    },
  };
  return client;
}
