import { describe, expect, it } from "@jest/globals";
import { ModelError } from "../../../src/core/model/model-error.js";
import { useMockServers, userAsks } from "./mock-server-fixture.js";

const servers = useMockServers();

async function failureOf(body: unknown): Promise<ModelError> {
  const server = await servers.start({ steps: [{ type: "error", status: 400, body }] });
  const { client } = servers.client(server, {});
  const thrown = await client.complete(userAsks("hi")).catch((error: unknown) => error);
  if (!(thrown instanceof ModelError)) throw new Error(`expected a ModelError, got ${String(thrown)}`);
  // Not retried: the same request cannot fit the next time either.
  expect(server.requests).toHaveLength(1);
  return thrown;
}

describe("a context overflow is recognised however the server spells it", () => {
  it("llama.cpp: exceed_context_size_error with n_ctx and n_prompt_tokens", async () => {
    const error = await failureOf({
      error: {
        code: 400,
        message: "request (5000 tokens) exceeds the available context size (4096 tokens), try increasing it",
        type: "exceed_context_size_error",
        n_prompt_tokens: 5000,
        n_ctx: 4096,
      },
    });
    expect(error).toMatchObject({ code: "MODEL_CONTEXT_OVERFLOW", contextWindow: 4096, promptTokens: 5000 });
    expect(error.message).not.toContain("OPENAI_API_KEY");
  });

  it("vLLM: its maximum context length sentence", async () => {
    const error = await failureOf({
      error: {
        message:
          "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens (8000 in the messages, 1000 in the completion).",
        type: "BadRequestError",
        param: null,
        code: 400,
      },
    });
    expect(error).toMatchObject({ code: "MODEL_CONTEXT_OVERFLOW", contextWindow: 8192, promptTokens: 9000 });
  });

  it("OpenAI: context_length_exceeded", async () => {
    const error = await failureOf({
      error: {
        message:
          "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
        type: "invalid_request_error",
        param: "messages",
        code: "context_length_exceeded",
      },
    });
    expect(error).toMatchObject({
      code: "MODEL_CONTEXT_OVERFLOW",
      contextWindow: 128000,
      promptTokens: 130000,
    });
  });

  it("another 400 stays a refused request", async () => {
    const error = await failureOf({
      error: { message: "bad tool schema", type: "invalid_request_error", code: null },
    });
    expect(error.code).toBe("MODEL_BAD_RESPONSE");
  });
});
