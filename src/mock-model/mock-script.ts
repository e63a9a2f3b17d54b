import { z } from "zod";

/**
 * The scripted model's file format (JSON). Each chat-completions request is answered by the next
 * step, in order:
 *
 * - `{"type": "text", "text": "..."}`: an assistant answer.
 * - `{"type": "tool_calls", "calls": [{"name", "arguments", "id"?}], "text"?}`: one or more tool
 *   calls in one answer. `arguments` is an object (sent as JSON) or a raw string, sent as is, to
 *   script malformed JSON.
 * - `{"type": "error", "status": 503, "retry_after"?: "1", "body"?: {...}}`: an HTTP error.
 * - `{"type": "hang", "after_headers"?: true}`: never finishes answering (timeouts). With
 *   `after_headers` the status line and headers (and for a stream, nothing else) are sent first,
 *   to test a deadline on the body rather than on the headers.
 *
 * Any step may add:
 * - `model`: the step answers only requests for that model. A request takes the next step among
 *   its own model's steps first; when its model has none left, the next step without `model`.
 *   This is how a fallback test makes model A fail while model B answers.
 * - `times`: how many requests the step answers (a positive integer or "forever"; default 1).
 * - `delay_ms`: wait before answering.
 * - `usage`: token numbers to report, or null to report none. By default they are estimated
 *   from text lengths (about 4 characters a token).
 * - `finish_reason` (text and tool_calls steps): e.g. "length", to send an answer cut off at the
 *   output cap; by default "tool_calls" or "stop".
 *
 * A `text` or `tool_calls` step may add `cut_after_chunks`: a stream sends that many chunks and
 * then the connection drops (no `[DONE]`), as when a server or proxy fails mid-answer; a request
 * without streaming gets its connection dropped before any answer.
 *
 * When no step is left the server answers HTTP 400 "mock script exhausted", which no client
 * retries, so a test that asks the model more often than scripted fails loudly.
 */
const usageSchema = z.strictObject({
  prompt_tokens: z.number().int().nonnegative(),
  completion_tokens: z.number().int().nonnegative(),
  cached_tokens: z.number().int().nonnegative().optional(),
});

const commonFields = {
  model: z.string().min(1).optional(),
  times: z.union([z.number().int().positive(), z.literal("forever")]).optional(),
  delay_ms: z.number().int().nonnegative().optional(),
  usage: usageSchema.nullable().optional(),
};

const finishReason = z.enum(["stop", "tool_calls", "length", "content_filter"]).optional();
const answerFields = {
  cut_after_chunks: z.number().int().nonnegative().optional(),
};

const mockToolCallSchema = z.strictObject({
  id: z.string().min(1).optional(),
  name: z.string(),
  arguments: z.union([z.record(z.string(), z.unknown()), z.string()], {
    error: "must be an object (sent as JSON) or a string (sent as is)",
  }),
});

export const mockStepSchema = z.discriminatedUnion("type", [
  z.strictObject({
    type: z.literal("text"),
    text: z.string(),
    finish_reason: finishReason,
    ...commonFields,
    ...answerFields,
  }),
  z.strictObject({
    type: z.literal("tool_calls"),
    calls: z.array(mockToolCallSchema).min(1),
    text: z.string().optional(),
    finish_reason: finishReason,
    ...commonFields,
    ...answerFields,
  }),
  z.strictObject({
    type: z.literal("error"),
    status: z.number().int().min(400).max(599),
    retry_after: z.string().optional(),
    retry_after_ms: z.number().nonnegative().optional(),
    body: z.unknown().optional(),
    ...commonFields,
  }),
  z.strictObject({ type: z.literal("hang"), after_headers: z.boolean().optional(), ...commonFields }),
]);

export const mockScriptSchema = z.strictObject({
  steps: z.array(mockStepSchema),
});

export type MockStep = z.infer<typeof mockStepSchema>;
export type MockToolCall = z.infer<typeof mockToolCallSchema>;
export type MockScript = z.infer<typeof mockScriptSchema>;

export type MockScriptResult =
  | { readonly success: true; readonly value: MockScript }
  | { readonly success: false; readonly error: string };

/** Accepts parsed JSON or JSON text; errors name the field, e.g. `steps[2].status`. */
export function parseMockScript(input: unknown): MockScriptResult {
  let json = input;
  if (typeof input === "string") {
    try {
      json = JSON.parse(input) as unknown;
    } catch (error: unknown) {
      const detail = error instanceof Error ? error.message : String(error);
      return { success: false, error: `mock script is not valid JSON: ${detail}` };
    }
  }
  const parsed = mockScriptSchema.safeParse(json);
  if (parsed.success) return { success: true, value: parsed.data };
  const problems = parsed.error.issues.map((issue) => `${formatPath(issue.path)}: ${issue.message}`);
  return { success: false, error: `invalid mock script: ${problems.join("; ")}` };
}

function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return "(root)";
  return path
    .map((key, index) => {
      if (typeof key === "number") return `[${key}]`;
      const name = String(key);
      return index === 0 ? name : `.${name}`;
    })
    .join("");
}
