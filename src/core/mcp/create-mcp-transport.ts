import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { mcpChildEnvironment } from "./mcp-child-environment.js";
import { isStdioServer, type McpServerSettings } from "./mcp-server-settings.js";

/**
 * The transport to one configured server: HTTP with the operator's headers, or a child process
 * with an environment of PATH, HOME and what the operator set for it. A child's stderr is piped
 * and drained (a chatty server never blocks on a full pipe); `onStderr` keeps its tail.
 */
export function createMcpTransport(
  settings: McpServerSettings,
  onStderr: (chunk: string) => void,
): StdioClientTransport | StreamableHTTPClientTransport {
  if (!isStdioServer(settings)) {
    return new StreamableHTTPClientTransport(new URL(settings.url), {
      requestInit: { headers: { ...settings.headers } },
    });
  }
  const stdio = new StdioClientTransport({
    command: settings.command,
    args: [...(settings.args ?? [])],
    env: mcpChildEnvironment(settings.env ?? {}),
    stderr: "pipe",
  });
  stdio.stderr?.on("data", (chunk: Buffer | string) => onStderr(chunk.toString()));
  return stdio;
}
