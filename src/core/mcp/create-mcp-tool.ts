import type { Tool as McpToolDefinition } from "@modelcontextprotocol/sdk/types.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { defineTool, type Tool } from "../tools/tool.js";
import { errorResult, type ToolResult } from "../tools/tool-result.js";
import { convertMcpResult } from "./convert-mcp-result.js";
import type { McpConnection } from "./create-mcp-connection.js";
import { McpClientError } from "./mcp-client-error.js";

const MAX_DESCRIPTION_CHARS = 1_024;

export interface McpToolOptions {
  /** The model-facing name from assignMcpToolNames. */
  readonly name: string;
  readonly server: string;
  readonly definition: McpToolDefinition;
  readonly connection: Pick<McpConnection, "callTool">;
  /** Set by the operator for the server; the server's own `readOnlyHint` is not trusted. */
  readonly isReadOnly: boolean;
  readonly timeoutMs?: number;
}

/**
 * An MCP tool as a first-class tool: same registry, same approval, same hygiene, redaction and
 * fencing (its `source` is `mcp:<server>`). The server's JSON Schema is what the model sees; the
 * server validates arguments itself, so ours only checks the shape and the required keys.
 */
export function createMcpTool(options: McpToolOptions): Tool {
  const { definition, server } = options;
  return defineTool({
    name: options.name,
    description: describe(server, definition),
    kind: options.isReadOnly ? "read" : "write",
    source: `mcp:${server}`,
    inputSchema: inputSchemaFor(definition),
    jsonSchema: jsonSchemaFor(definition),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    async execute(input, context): Promise<ToolResult> {
      try {
        const outcome = await options.connection.callTool(definition.name, input, context.signal);
        return convertMcpResult(outcome, server, definition.name);
      } catch (error) {
        return failureResult(error, server, definition.name, context.signal);
      }
    },
  });
}

function describe(server: string, definition: McpToolDefinition): string {
  const text = (definition.description ?? definition.title ?? "").replace(/\s+/g, " ").trim();
  const full = `[MCP server ${server}, tool ${definition.name}] ${text}`.trim();
  return full.length <= MAX_DESCRIPTION_CHARS ? full : `${full.slice(0, MAX_DESCRIPTION_CHARS - 1)}…`;
}

function jsonSchemaFor(definition: McpToolDefinition): Record<string, unknown> {
  const { $schema: _ignored, ...schema } = definition.inputSchema as Record<string, unknown>;
  void _ignored;
  // Model APIs want an object schema with properties, even for tools that take nothing.
  return { ...schema, type: "object", properties: schema["properties"] ?? {} };
}

function inputSchemaFor(definition: McpToolDefinition) {
  const required = Array.isArray(definition.inputSchema.required)
    ? definition.inputSchema.required.filter((key): key is string => typeof key === "string")
    : [];
  return z.record(z.string(), z.unknown()).superRefine((value, context) => {
    for (const key of required) {
      if (value[key] === undefined)
        context.addIssue({ code: "custom", path: [key], message: "required by the tool's schema" });
    }
  });
}

function failureResult(error: unknown, server: string, tool: string, signal: AbortSignal): ToolResult {
  const metadata = { mcp_server: server, mcp_tool: tool };
  if (signal.aborted) {
    return errorResult("CANCELLED", {
      status: "cancelled",
      message: `The call to ${server}/${tool} was stopped.`,
      recovery_hint: "Try a narrower request, or continue without this tool.",
      next_actions: ["continue without this tool"],
      metadata,
    });
  }
  if (error instanceof McpClientError) {
    const isGone = error.code === "MCP_SERVER_UNAVAILABLE" || error.code === "MCP_CLOSED";
    return errorResult("MCP_ERROR", {
      message: error.message,
      recoverable: !isGone,
      recovery_hint: isGone
        ? `Do not call tools of ${server} again in this run; use other tools or finish with what you have.`
        : `Check whether the call took effect before repeating it; ${server} is restarted on the next call.`,
      next_actions: isGone ? ["use another tool"] : ["check the effect", "call the tool again"],
      metadata: { ...metadata, mcp_error: error.code },
    });
  }
  if (error instanceof McpError) {
    return errorResult("MCP_ERROR", {
      message: `${server} refused the call to ${tool}: ${error.message}`,
      recovery_hint: "Check the tool's schema and the arguments, then call it again.",
      next_actions: ["call the tool again with corrected arguments", "use another tool"],
      metadata: { ...metadata, mcp_error_code: error.code },
    });
  }
  return errorResult("MCP_ERROR", {
    message: `The call to ${server}/${tool} failed: ${error instanceof Error ? error.message : String(error)}`,
    recovery_hint: "Try once more; if it fails again, use another tool.",
    next_actions: ["retry once", "use another tool"],
    metadata,
  });
}
