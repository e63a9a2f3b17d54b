/** Why an MCP server could not be used; the MCP tool turns it into an MCP_ERROR result. */
export type McpClientErrorCode =
  /** The server did not start or answer `initialize` and `tools/list` in time. */
  | "MCP_STARTUP_FAILED"
  /** The server is down and reconnecting failed or is no longer attempted. */
  | "MCP_SERVER_UNAVAILABLE"
  /** The connection closed while a call was in flight (the server crashed or exited). */
  | "MCP_CONNECTION_CLOSED"
  /** The manager was closed; no further calls are possible. */
  | "MCP_CLOSED";

export class McpClientError extends Error {
  override readonly name = "McpClientError";
  readonly code: McpClientErrorCode;
  readonly server: string;

  constructor(code: McpClientErrorCode, server: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.server = server;
  }
}
