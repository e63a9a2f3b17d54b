import { readString } from "../../core/trace/index.js";
import type { ParsedTrace } from "../../core/trace/index.js";
import { formatCostUsd, readCostUsd } from "../../core/model/index.js";

export interface JobSummaryInput {
  /** One line: what happened (`Pull request opened`, `Skipped: ...`). */
  readonly headline: string;
  readonly details?: string;
  readonly url?: string;
  readonly trace?: ParsedTrace;
  readonly tracePath?: string;
  readonly htmlPath?: string;
  readonly runUrl?: string;
}

const MAX_STEP_ROWS = 60;
const MAX_CELL_CHARS = 120;

/**
 * The job summary as Markdown: the outcome, the figures (turns, tokens, cost) and one row per
 * step. The caller passes the result through the redactor: the steps quote tool output.
 */
export function renderJobSummary(input: JobSummaryInput): string {
  const lines = [`## AgentForge: ${input.headline}`, ""];
  if (input.url) lines.push(`**Result:** ${input.url}`, "");
  if (input.details) lines.push(input.details, "");
  const trace = input.trace;
  if (trace) {
    const footer = trace.footer;
    lines.push(
      "| Exit | Turns | Tokens (in / out) | Cost | Model |",
      "| --- | --- | --- | --- | --- |",
      footer
        ? `| ${cell(footer.exit_reason)} | ${footer.turns} | ${footer.usage.total_tokens} (${footer.usage.prompt_tokens} / ${footer.usage.completion_tokens}) | ${formatCostUsd(readCostUsd(footer.cost_usd))} | ${cell(trace.header.model)} |`
        : `| (unfinished) | – | – | – | ${cell(trace.header.model)} |`,
      "",
    );
    const steps = collectSteps(trace);
    if (steps.length > 0) {
      lines.push("### Steps", "", "| Turn | Step | Outcome |", "| --- | --- | --- |");
      for (const step of steps.slice(0, MAX_STEP_ROWS))
        lines.push(`| ${step.turn} | ${cell(step.what)} | ${cell(step.outcome)} |`);
      if (steps.length > MAX_STEP_ROWS)
        lines.push("", `…and ${steps.length - MAX_STEP_ROWS} more steps in the trace.`);
      lines.push("");
    }
  }
  if (input.tracePath) {
    lines.push(
      `Trace: \`${input.tracePath}\`${input.htmlPath ? `, report: \`${input.htmlPath}\`` : ""} (keep them with actions/upload-artifact).`,
    );
  }
  if (input.runUrl) lines.push("", `[Workflow run](${input.runUrl})`);
  return `${lines.join("\n")}\n`;
}

interface SummaryStep {
  readonly turn: number;
  readonly what: string;
  readonly outcome: string;
}

function collectSteps(trace: ParsedTrace): SummaryStep[] {
  const steps: SummaryStep[] = [];
  const argumentsById = new Map<string, string>();
  // A refused call also ends with a COMMAND_BLOCKED result; the refusal row says it already.
  const refusedIds = new Set<string>();
  for (const event of trace.events) {
    const attributes = event.attributes;
    const name = readString(attributes, "tool_call.name") ?? "";
    const id = readString(attributes, "tool_call.id") ?? "";
    switch (event.event_type) {
      case "tool-call-start":
        argumentsById.set(id, describeArguments(attributes["tool_call.arguments"]));
        break;
      case "tool-call-end": {
        if (refusedIds.has(id)) break;
        const ok = attributes["tool_call.ok"] === true;
        const errorType = attributes["tool_call.error_type"];
        const summary = readString(attributes, "tool_call.summary") ?? "";
        steps.push({
          turn: event.step,
          what: `${name} ${argumentsById.get(id) ?? ""}`.trim(),
          outcome: ok
            ? `✅ ${summary}`
            : `❌ ${typeof errorType === "string" ? errorType : "failed"} ${summary}`,
        });
        break;
      }
      case "tool-call-refused":
        refusedIds.add(id);
        steps.push({
          turn: event.step,
          what: `${name} ${argumentsById.get(id) ?? ""}`.trim(),
          outcome: `🚫 refused: ${readString(attributes, "refusal.reason") ?? ""}`,
        });
        break;
      case "context-compacted":
        steps.push({ turn: event.step, what: "context compacted", outcome: "ℹ️" });
        break;
      default:
        break;
    }
  }
  return steps;
}

/** The most telling argument of a call, shown short: a command, a path or a pattern. */
function describeArguments(value: unknown): string {
  let parsed: unknown = value;
  if (typeof value === "string") {
    try {
      parsed = JSON.parse(value);
    } catch (error) {
      // Malformed arguments from the model are shown as they came.
      if (error instanceof SyntaxError) return value;
      throw error;
    }
  }
  if (typeof parsed !== "object" || parsed === null) return "";
  const record = parsed as Record<string, unknown>;
  for (const key of ["command", "path", "pattern", "name", "task"]) {
    const field = record[key];
    if (typeof field === "string") return field;
  }
  return "";
}

/** One table cell: no line breaks, no unescaped pipes, no HTML, bounded length. */
function cell(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  const cut = flat.length > MAX_CELL_CHARS ? `${flat.slice(0, MAX_CELL_CHARS - 1)}…` : flat;
  return cut
    .replace(/\\/g, "\\\\")
    .replace(/\|/g, "\\|")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/`/g, "'");
}
