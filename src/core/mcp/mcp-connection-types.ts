import type { Tool as McpToolDefinition } from "@modelcontextprotocol/sdk/types.js";
import type { McpCallOutcome } from "./convert-mcp-result.js";

export type McpConnectionState = "idle" | "connected" | "disconnected" | "dead" | "closed";

export interface ReconnectPolicy {
  /** Attempts per outage before the server is given up as dead. */
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /** Successful restarts allowed over the connection's life: a server that crashes on every call stops being restarted. */
  readonly maxRestarts: number;
}

export const DEFAULT_RECONNECT_POLICY: ReconnectPolicy = {
  maxAttempts: 3,
  baseDelayMs: 250,
  maxDelayMs: 4_000,
  maxRestarts: 5,
};

export interface McpConnectionOptions {
  readonly log: (message: string) => void;
  readonly reconnect: ReconnectPolicy;
  readonly callTimeoutMs: number;
  /** How long a stdio server gets to exit after its stdin closes before it is sent SIGTERM. */
  readonly closeGraceMs: number;
}

export interface McpConnection {
  readonly name: string;
  readonly state: McpConnectionState;
  /** The stdio server's pid while it runs; null for HTTP servers and when stopped. */
  readonly pid: number | null;
  readonly restarts: number;
  /** Connects and lists the tools within the start-up timeout; stops the server on failure. */
  start(signal?: AbortSignal): Promise<McpToolDefinition[]>;
  callTool(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<McpCallOutcome>;
  close(): Promise<void>;
}
