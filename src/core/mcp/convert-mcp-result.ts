import type { ContentBlock } from "@modelcontextprotocol/sdk/types.js";
import { errorResult, okResult, type ToolResult } from "../tools/tool-result.js";

const MAX_ERROR_MESSAGE_CHARS = 500;

/** What `Client.callTool` resolves to: the current shape or the legacy `toolResult` one. */
export type McpCallOutcome = Readonly<Record<string, unknown>>;

/**
 * Turns an MCP tool result into our ToolResult. Text is concatenated; images, audio and binary
 * resources become a short description (the model cannot use raw base64 and it would flood the
 * context). The registry then applies hygiene, redaction and fencing as for any tool.
 */
export function convertMcpResult(outcome: McpCallOutcome, server: string, toolName: string): ToolResult {
  const text = renderOutcome(outcome);
  const metadata = { mcp_server: server, mcp_tool: toolName };
  if (outcome["isError"] === true) {
    const message = text.trim() === "" ? "The server reported an error without a message." : text.trim();
    return errorResult("MCP_ERROR", {
      message: `${server} says: ${cut(message, MAX_ERROR_MESSAGE_CHARS)}`,
      output: text,
      recovery_hint:
        "Read the server's message, correct the arguments and call the tool again, or use another tool.",
      next_actions: ["call the tool again with corrected arguments", "use another tool"],
      metadata,
    });
  }
  return okResult(text, { summary: `${server}/${toolName}: ${text.length} characters`, metadata });
}

function renderOutcome(outcome: McpCallOutcome): string {
  const content = outcome["content"];
  const parts = Array.isArray(content) ? content.map((block) => renderBlock(block as ContentBlock)) : [];
  const structured = outcome["structuredContent"];
  // Structured content duplicates the text for servers that follow the spec; show it only when it adds something.
  if (structured !== undefined && parts.every((part) => part.trim() === ""))
    parts.push(JSON.stringify(structured, null, 2));
  if ("toolResult" in outcome && parts.length === 0)
    parts.push(JSON.stringify(outcome["toolResult"], null, 2));
  return parts.filter((part) => part !== "").join("\n");
}

function renderBlock(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
      return `[image ${block.mimeType}, ${base64Bytes(block.data)} bytes, not shown]`;
    case "audio":
      return `[audio ${block.mimeType}, ${base64Bytes(block.data)} bytes, not shown]`;
    case "resource_link":
      return `[resource link ${block.uri}${block.name ? ` (${block.name})` : ""}${block.mimeType ? `, ${block.mimeType}` : ""}]`;
    case "resource": {
      const resource = block.resource;
      if ("text" in resource && typeof resource.text === "string")
        return `[resource ${resource.uri}]\n${resource.text}`;
      const size = "blob" in resource && typeof resource.blob === "string" ? base64Bytes(resource.blob) : 0;
      return `[resource ${resource.uri}${resource.mimeType ? `, ${resource.mimeType}` : ""}, ${size} bytes of binary data, not shown]`;
    }
    default:
      return `[content of type ${String((block as { type?: unknown }).type)}, not shown]`;
  }
}

function base64Bytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

function cut(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}…`;
}
