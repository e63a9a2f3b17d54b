import type { APIError } from "openai";

export interface ContextOverflow {
  readonly contextWindow?: number;
  readonly promptTokens?: number;
}

/*
 * Each server family says "the request does not fit" its own way:
 * - llama.cpp: HTTP 400, `type: "exceed_context_size_error"`, with `n_ctx` and `n_prompt_tokens`.
 * - OpenAI (and Azure, OpenRouter relaying it): `code: "context_length_exceeded"`.
 * - vLLM: HTTP 400 with only a sentence, "This model's maximum context length is 4096 tokens.
 *   However, you requested 5000 tokens ...". Its error has no code of its own, so this one
 *   sentence is recognised by its text; nothing else in the harness is.
 */
const VLLM_SENTENCE = /maximum context length is (\d+) tokens/i;
const VLLM_REQUESTED = /(?:requested|resulted in) (\d+) tokens/i;

/** The overflow an HTTP error reports, or undefined when it reports something else. */
export function readContextOverflow(error: APIError): ContextOverflow | undefined {
  if (error.status !== 400 && error.status !== 413) return undefined;
  const body: unknown = error.error;
  const fields = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
  if (fields["type"] === "exceed_context_size_error") {
    return withNumbers(numberField(fields, "n_ctx"), numberField(fields, "n_prompt_tokens"));
  }
  if (fields["code"] === "context_length_exceeded") {
    const text = typeof fields["message"] === "string" ? fields["message"] : error.message;
    return withNumbers(firstNumber(VLLM_SENTENCE, text), firstNumber(VLLM_REQUESTED, text));
  }
  const text = typeof fields["message"] === "string" ? fields["message"] : error.message;
  const window = firstNumber(VLLM_SENTENCE, text);
  if (window === undefined) return undefined;
  return withNumbers(window, firstNumber(VLLM_REQUESTED, text));
}

function withNumbers(contextWindow: number | undefined, promptTokens: number | undefined): ContextOverflow {
  return {
    ...(contextWindow === undefined ? {} : { contextWindow }),
    ...(promptTokens === undefined ? {} : { promptTokens }),
  };
}

function numberField(fields: Record<string, unknown>, name: string): number | undefined {
  const value = fields[name];
  return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : undefined;
}

function firstNumber(pattern: RegExp, text: string): number | undefined {
  const match = pattern.exec(text);
  const digits = match?.[1];
  return digits === undefined ? undefined : Number(digits);
}
