/**
 * One MCP server as the manager takes it. The operator config's `McpServerConfig` (defaults
 * applied) fits this shape; the optional fields let tests and doors pass less.
 */
export type McpServerSettings = McpStdioServerSettings | McpHttpServerSettings;

export interface McpStdioServerSettings {
  readonly command: string;
  readonly args?: readonly string[];
  /** The only variables the server gets besides PATH and HOME: the host's secrets never reach it. */
  readonly env?: Readonly<Record<string, string>>;
  readonly read_only?: boolean;
  readonly startup_timeout_ms?: number;
}

export interface McpHttpServerSettings {
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly read_only?: boolean;
  readonly startup_timeout_ms?: number;
}

export const DEFAULT_STARTUP_TIMEOUT_MS = 10_000;

export function isStdioServer(settings: McpServerSettings): settings is McpStdioServerSettings {
  return "command" in settings;
}
