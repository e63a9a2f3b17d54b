import type { ToolResult } from "./tool-result.js";

/**
 * The one place that turns a ToolResult into what the model reads. The status line is written by
 * the harness; everything a tool produced (output, messages that may quote files) is fenced by the
 * caller, so the model can tell the harness's words from outside content.
 */
export function renderStatusLine(toolName: string, result: ToolResult): string {
  if (result.ok) return `[${toolName}] ok`;
  const error = result.error;
  const kind = error
    ? `${error.error_type}${error.recoverable ? " (recoverable)" : " (not recoverable)"}`
    : result.status;
  return `[${toolName}] ${result.status}: ${kind}`;
}

/** The body that goes inside the fence: summary, error message, output, hint and next actions. */
export function renderResultBody(result: ToolResult): string {
  const lines: string[] = [];
  if (result.error) lines.push(`error: ${result.error.message}`);
  else if (result.summary) lines.push(`summary: ${result.summary}`);
  if (result.output) lines.push(result.output);
  if (result.recovery_hint) lines.push(`hint: ${result.recovery_hint}`);
  if (result.next_actions.length > 0) lines.push(`next: ${result.next_actions.join(" | ")}`);
  if (result.artifacts.length > 0) lines.push(`artifacts: ${result.artifacts.join(", ")}`);
  return lines.join("\n");
}

/** The tool message the model reads: the harness's status line, then the body fenced with its source. */
export function renderToolMessage(
  toolName: string,
  result: ToolResult,
  fence: (content: string, source: string) => string,
  source = `tool:${toolName}`,
): string {
  return `${renderStatusLine(toolName, result)}\n${fence(renderResultBody(result), source)}`;
}
