import type { ParsedTrace } from "./read-trace.js";
import type { TraceEvent } from "./trace-format.js";
import { formatCostUsd, readCostUsd, type CostUsd } from "../model/cost-usd.js";

const OUTPUT_PREVIEW_CHARS = 240;

/**
 * Tells a recorded run as a story, from the trace alone: each turn, what the model said and
 * called, each tool's outcome, and why the run stopped. Calls no model and no tool.
 */
export function renderTraceStory(trace: ParsedTrace): string {
  const { header, footer } = trace;
  const lines: string[] = [
    `Run ${header.run_id} — ${header.task}`,
    `Goal: ${header.user_goal}`,
    `Model: ${header.model}; started ${header.start_time}${header.mode ? `; mode ${header.mode}` : ""}${header.approval_mode ? `; approval ${header.approval_mode}` : ""}`,
    "",
  ];
  let currentStep = -1;
  for (const event of trace.events) {
    const line = describeEvent(event);
    if (line === null) continue;
    if (event.step !== currentStep && event.step > 0) {
      currentStep = event.step;
      lines.push(`Turn ${event.step}`);
    }
    lines.push(...line.split("\n").map((part) => `  ${part}`));
  }
  lines.push("");
  if (footer) {
    lines.push(
      `Stopped: ${footer.exit_reason} after ${footer.turns} turn(s); ${footer.usage.total_tokens} tokens (${footer.usage.prompt_tokens} in, ${footer.usage.completion_tokens} out); ${describeCost(readCostUsd(footer.cost_usd))}.`,
    );
    if (footer.actions && footer.actions.refused > 0)
      lines.push(
        footer.actions.refused === footer.actions.attempted
          ? `Every action was refused (${footer.actions.refused} of ${footer.actions.attempted}): nothing was changed or run.`
          : `Refused: ${footer.actions.refused} of ${footer.actions.attempted} action(s).`,
      );
    if (footer.error) lines.push(`Error: ${footer.error}`);
  } else {
    lines.push("The trace has no footer: the run crashed or is still going.");
  }
  for (const problem of trace.problems) lines.push(`Note: ${problem}`);
  return lines.join("\n");
}

function describeEvent(event: TraceEvent): string | null {
  const a = event.attributes;
  switch (event.event_type) {
    case "model-call-end": {
      const calls = Array.isArray(a["model.tool_calls"])
        ? (a["model.tool_calls"] as { name?: unknown; arguments?: unknown }[])
        : [];
      const said =
        typeof a["model.text"] === "string" && a["model.text"].trim() !== ""
          ? `Model said: ${preview(a["model.text"])}`
          : null;
      const parts = [
        said,
        calls.length > 0
          ? `Model called ${calls.map((call) => `${text(call.name)}(${preview(text(call.arguments ?? ""), 120)})`).join(", ")}`
          : null,
      ];
      return parts.filter((part) => part !== null).join("\n") || "Model answered with nothing.";
    }
    case "tool-call-end": {
      const name = text(a["tool_call.name"]);
      if (a["tool_call.ok"] === true) return `→ ${name}: ok — ${text(a["tool_call.summary"] ?? "")}`;
      return `→ ${name}: ${text(a["tool_call.status"])} ${text(a["tool_call.error_type"] ?? "")} — ${preview(text(a["tool_call.error_message"] ?? ""))}`;
    }
    case "tool-call-refused":
      return `✗ refused ${text(a["tool_call.name"])}: ${preview(text(a["refusal.reason"] ?? ""))}`;
    case "model-retry":
      return `Model call retried (attempt ${text(a["retry.attempt"])}, waited ${text(a["retry.delay_ms"])} ms): ${text(a["retry.reason"])}`;
    case "model-fallback":
      return `Fell back from ${text(a["fallback.from"])} to ${text(a["fallback.to"])}: ${text(a["fallback.reason"])}`;
    case "loop-detected":
      return `Loop detected: ${text(a["loop.description"])}; the model must answer without tools.`;
    case "context-warning":
      return `Context at ${text(a["context.used_tokens"])} of ${text(a["context.window_tokens"])} tokens.`;
    case "context-pruned":
      return `Pruned ${text(a["context.pruned_count"])} old observation(s): ${text(a["context.tokens_before"])} → ${text(a["context.tokens_after"])} tokens.`;
    case "context-compacted":
      return `Compacted older turns into a summary: ${text(a["context.tokens_before"])} → ${text(a["context.tokens_after"])} tokens.`;
    case "subagent-start":
      return `Subagent ${text(a["subagent.name"])} started: ${preview(text(a["subagent.goal"] ?? ""))}`;
    case "subagent-end":
      return `Subagent ${text(a["subagent.name"])} finished: ${text(a["subagent.exit_reason"])}`;
    case "run-resumed":
      return `Run resumed from its checkpoint${a["resume.interrupted_calls"] ? ` (${text(a["resume.interrupted_calls"])} interrupted call(s) reported to the model)` : ""}.`;
    case "run-finished":
      return typeof a["run.final_answer"] === "string"
        ? `Final answer: ${preview(a["run.final_answer"], 600)}`
        : null;
    default:
      return null;
  }
}

/** Attribute values are JSON: strings as they are, anything else as JSON text. */
function text(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined || value === null) return "";
  return JSON.stringify(value);
}

function preview(text: string, limit = OUTPUT_PREVIEW_CHARS): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > limit ? `${flat.slice(0, limit)}…` : flat;
}

function describeCost(cost: CostUsd): string {
  return cost === null ? "cost unknown" : `cost ${formatCostUsd(cost)}`;
}
