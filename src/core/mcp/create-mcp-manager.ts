import type { Tool as McpToolDefinition } from "@modelcontextprotocol/sdk/types.js";
import type { Tool } from "../tools/tool.js";
import {
  createMcpConnection,
  DEFAULT_RECONNECT_POLICY,
  type McpConnection,
  type McpConnectionState,
  type ReconnectPolicy,
} from "./create-mcp-connection.js";
import { createMcpTool } from "./create-mcp-tool.js";
import { assignMcpToolNames, mcpToolNameFor } from "./mcp-tool-names.js";
import type { McpServerSettings } from "./mcp-server-settings.js";

export interface McpManagerOptions {
  readonly log?: (message: string) => void;
  /** Cancels start-up (and reconnects) when the run is cancelled. */
  readonly signal?: AbortSignal;
  /** Built-in tool names an MCP tool must never take. */
  readonly reservedNames?: readonly string[];
  /** Upper bound per MCP call; the registry's tool timeout applies too. Default 120 s. */
  readonly callTimeoutMs?: number;
  readonly reconnect?: Partial<ReconnectPolicy>;
  /** Default 1 s. */
  readonly closeGraceMs?: number;
}

export interface McpStartProblem {
  readonly server: string;
  readonly message: string;
}

export interface McpServerStatus {
  readonly server: string;
  readonly state: McpConnectionState;
  readonly pid: number | null;
  readonly restarts: number;
  readonly toolCount: number;
}

export interface McpManager {
  /** Starts every server side by side; a server that fails is reported in `problems` and skipped. */
  start(): Promise<{ readonly tools: Tool[]; readonly problems: McpStartProblem[] }>;
  status(): McpServerStatus[];
  /** Stops every server and its child processes. Safe to call more than once. */
  close(): Promise<void>;
}

const DEFAULT_CALL_TIMEOUT_MS = 120_000;
const DEFAULT_CLOSE_GRACE_MS = 1_000;

/**
 * The MCP servers of the operator's config (never of the repository under change). This folder is
 * the one exception to "only the sandbox spawns processes": the SDK spawns stdio servers here.
 */
export function createMcpManager(
  servers: Readonly<Record<string, McpServerSettings>>,
  options: McpManagerOptions = {},
): McpManager {
  const log = options.log ?? (() => undefined);
  const callTimeoutMs = options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
  const connections = new Map<string, McpConnection>();
  const toolCounts = new Map<string, number>();
  let isClosed = false;

  for (const [server, settings] of Object.entries(servers)) {
    connections.set(
      server,
      createMcpConnection(server, settings, {
        log,
        callTimeoutMs,
        reconnect: { ...DEFAULT_RECONNECT_POLICY, ...options.reconnect },
        closeGraceMs: options.closeGraceMs ?? DEFAULT_CLOSE_GRACE_MS,
      }),
    );
  }

  async function start(): Promise<{ tools: Tool[]; problems: McpStartProblem[] }> {
    const problems: McpStartProblem[] = [];
    const listed: { server: string; definitions: McpToolDefinition[] }[] = [];
    await Promise.all(
      [...connections].map(async ([server, connection]) => {
        try {
          const definitions = await connection.start(options.signal);
          listed.push({ server, definitions });
          toolCounts.set(server, definitions.length);
          log(`MCP server ${server} started with ${definitions.length} tools.`);
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          problems.push({ server, message });
          log(`MCP server ${server} skipped: ${message}`);
        }
      }),
    );
    if (isClosed) {
      // close() ran during start-up: whatever started late must not outlive the manager.
      await close();
      return { tools: [], problems };
    }
    // Sorted so the tool order (and thus the prompt) does not depend on which server answered first.
    listed.sort((left, right) => left.server.localeCompare(right.server));
    problems.sort((left, right) => left.server.localeCompare(right.server));
    const names = assignMcpToolNames(
      listed.flatMap(({ server, definitions }) =>
        definitions.map((definition) => ({ server, tool: definition.name })),
      ),
      new Set(options.reservedNames ?? []),
    );
    const tools = listed.flatMap(({ server, definitions }) =>
      definitions.map((definition) =>
        createMcpTool({
          name: mcpToolNameFor(names, { server, tool: definition.name })!,
          server,
          definition,
          connection: connections.get(server)!,
          isReadOnly: servers[server]?.read_only === true,
          // A little above the SDK's own timeout, so its precise error wins the race.
          timeoutMs: callTimeoutMs + 1_000,
        }),
      ),
    );
    return { tools, problems };
  }

  async function close(): Promise<void> {
    isClosed = true;
    const results = await Promise.allSettled(
      [...connections.values()].map((connection) => connection.close()),
    );
    for (const [index, result] of results.entries()) {
      if (result.status === "rejected")
        log(`MCP server ${[...connections.keys()][index]}: closing failed: ${String(result.reason)}`);
    }
  }

  function status(): McpServerStatus[] {
    return [...connections].map(([server, connection]) => ({
      server,
      state: connection.state,
      pid: connection.pid,
      restarts: connection.restarts,
      toolCount: toolCounts.get(server) ?? 0,
    }));
  }

  return { start, status, close };
}
