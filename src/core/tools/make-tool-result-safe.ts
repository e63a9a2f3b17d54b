import { renderToolMessage } from "./render-tool-result.js";
import type { Tool, ToolContext } from "./tool.js";
import type { ToolResult } from "./tool-result.js";
import type { ContentSafety } from "./content-safety.js";

const DEFAULT_MAX_OUTPUT_CHARS = 20_000;

/** Hygiene, then redaction of every text field, then fencing of the body. Redaction runs before the cut. */
export async function makeToolResultSafe(
  result: ToolResult,
  toolName: string,
  tool: Tool | undefined,
  options: { readonly safety: ContentSafety; readonly maxOutputChars?: number },
  context: ToolContext,
): Promise<{ result: ToolResult; rendered: string }> {
  const { safety } = options;
  const redactedOutput = safety.redact(result.output);
  const cleaned = await safety.clean(redactedOutput, {
    label: `${toolName}-${context.runId}`,
    maxChars: options.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS,
  });
  const artifacts = cleaned.fullOutputPath ? [...result.artifacts, cleaned.fullOutputPath] : result.artifacts;
  const safeResult: ToolResult = {
    ...result,
    output: cleaned.text,
    summary: safety.redact(result.summary),
    artifacts: artifacts.map((artifact) => safety.redact(artifact)),
    next_actions: result.next_actions.map((action) => safety.redact(action)),
    ...(result.error ? { error: { ...result.error, message: safety.redact(result.error.message) } } : {}),
    ...(result.recovery_hint === undefined ? {} : { recovery_hint: safety.redact(result.recovery_hint) }),
  };
  const source = tool?.source ?? `tool:${toolName}`;
  const rendered = renderToolMessage(
    toolName,
    safeResult,
    (content, label) => safety.fence(content, label),
    source,
  );
  return { result: safeResult, rendered };
}
