export {
  createMcpManager,
  type McpManager,
  type McpManagerOptions,
  type McpServerStatus,
  type McpStartProblem,
} from "./create-mcp-manager.js";
export type { McpConnectionState, ReconnectPolicy } from "./create-mcp-connection.js";
export { McpClientError, type McpClientErrorCode } from "./mcp-client-error.js";
export type {
  McpServerSettings,
  McpHttpServerSettings,
  McpStdioServerSettings,
} from "./mcp-server-settings.js";
export {
  assignMcpToolNames,
  MODEL_TOOL_NAME_PATTERN,
  sanitizeNamePart,
  type McpToolIdentity,
} from "./mcp-tool-names.js";
