import { z } from "zod";
import { TRACE_SCHEMA } from "../core/trace/index.js";
import type { MockScriptResult, MockStep } from "./mock-script.js";

const headerSchema = z.looseObject({ schema: z.literal(TRACE_SCHEMA) });

const eventSchema = z.looseObject({
  event_type: z.string(),
  attributes: z.record(z.string(), z.unknown()),
});

const traceToolCallSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string(),
  arguments: z.union([z.string(), z.record(z.string(), z.unknown())]),
});

/** The model side of a model-call-end event, under the attribute names the trace writer uses. */
const modelOutputSchema = z.looseObject({
  "model.text": z.string().nullable().optional(),
  "model.tool_calls": z.array(traceToolCallSchema).optional(),
  "gen_ai.usage.input_tokens": z.number().int().nonnegative().optional(),
  "gen_ai.usage.output_tokens": z.number().int().nonnegative().optional(),
});

/**
 * Builds a script that answers like the model did in a recorded run: one step per
 * `model-call-end` event, in order, with the same text, tool-call ids and raw arguments, and the
 * recorded token usage when the trace has it.
 */
export function mockScriptFromTrace(trace: string | readonly string[]): MockScriptResult {
  const lines = (typeof trace === "string" ? trace.split("\n") : trace)
    .map((line, index) => ({ text: line.trim(), lineNumber: index + 1 }))
    .filter((line) => line.text !== "");
  const steps: MockStep[] = [];
  for (const [position, line] of lines.entries()) {
    let record: unknown;
    try {
      record = JSON.parse(line.text) as unknown;
    } catch (error: unknown) {
      const detail = error instanceof Error ? error.message : String(error);
      return { success: false, error: `trace line ${line.lineNumber} is not JSON: ${detail}` };
    }
    if (position === 0) {
      if (!headerSchema.safeParse(record).success) {
        return {
          success: false,
          error: `trace line ${line.lineNumber} is not a trace header with "schema": "${TRACE_SCHEMA}"`,
        };
      }
      continue;
    }
    const event = eventSchema.safeParse(record);
    // The footer and other non-event lines carry no model output.
    if (!event.success || event.data.event_type !== "model-call-end") continue;
    const output = modelOutputSchema.safeParse(event.data.attributes);
    if (!output.success) {
      const issue = output.error.issues[0];
      const field = issue === undefined ? "attributes" : issue.path.map(String).join(".");
      return {
        success: false,
        error: `trace line ${line.lineNumber}: model-call-end attribute ${field} ${issue?.message ?? "is invalid"}`,
      };
    }
    steps.push(toStep(output.data));
  }
  return { success: true, value: { steps } };
}

function toStep(output: z.infer<typeof modelOutputSchema>): MockStep {
  const input = output["gen_ai.usage.input_tokens"];
  const completion = output["gen_ai.usage.output_tokens"];
  const usage =
    input === undefined || completion === undefined
      ? {}
      : { usage: { prompt_tokens: input, completion_tokens: completion } };
  const text = output["model.text"] ?? undefined;
  const calls = output["model.tool_calls"] ?? [];
  if (calls.length === 0) return { type: "text", text: text ?? "", ...usage };
  return {
    type: "tool_calls",
    calls: calls.map((call) => ({ id: call.id, name: call.name, arguments: call.arguments })),
    ...(text === undefined ? {} : { text }),
    ...usage,
  };
}
