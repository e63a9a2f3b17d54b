import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError, type Tool as McpToolDefinition } from "@modelcontextprotocol/sdk/types.js";
import {
  isProcessAlive,
  listDescendantPids,
  signalProcesses,
  trackChildProcess,
  untrackChildProcess,
} from "./child-process-reaper.js";
import type { McpCallOutcome } from "./convert-mcp-result.js";
import { listAllTools } from "./list-all-tools.js";
import { messageOf } from "./mcp-child-environment.js";
import { createMcpTransport } from "./create-mcp-transport.js";
import { McpClientError } from "./mcp-client-error.js";
import { DEFAULT_STARTUP_TIMEOUT_MS, isStdioServer, type McpServerSettings } from "./mcp-server-settings.js";
import { DeadlineExceededError, sleep, withDeadline } from "./with-deadline.js";

export {
  DEFAULT_RECONNECT_POLICY,
  type McpConnection,
  type McpConnectionOptions,
  type McpConnectionState,
  type ReconnectPolicy,
} from "./mcp-connection-types.js";
import type { McpConnection, McpConnectionOptions, McpConnectionState } from "./mcp-connection-types.js";

const CLIENT_INFO = { name: "agentforge", version: "0.1.0" };
const STDERR_TAIL_CHARS = 2_000;
const STDERR_IN_MESSAGE_CHARS = 300;

/** One MCP server: its transport, its process, and the rules for restarting it. */
export function createMcpConnection(
  name: string,
  settings: McpServerSettings,
  options: McpConnectionOptions,
): McpConnection {
  const startupTimeoutMs = settings.startup_timeout_ms ?? DEFAULT_STARTUP_TIMEOUT_MS;
  let state: McpConnectionState = "idle";
  let client: Client | undefined;
  let transport: StdioClientTransport | StreamableHTTPClientTransport | undefined;
  let pid: number | null = null;
  let restarts = 0;
  let reconnecting: Promise<void> | undefined;
  let stderrTail = "";

  function createTransport(): StdioClientTransport | StreamableHTTPClientTransport {
    return createMcpTransport(settings, (chunk) => {
      stderrTail = `${stderrTail}${chunk}`.slice(-STDERR_TAIL_CHARS);
    });
  }

  async function open(signal: AbortSignal): Promise<Client> {
    const nextTransport = createTransport();
    const nextClient = new Client(CLIENT_INFO, { capabilities: {} });
    transport = nextTransport;
    client = nextClient;
    nextClient.onclose = () => onClosed(nextClient);
    nextClient.onerror = (error) => options.log(`MCP server ${name}: transport error: ${error.message}`);
    const connecting = nextClient.connect(nextTransport, { signal, timeout: startupTimeoutMs });
    // The SDK spawns synchronously inside connect(): record the pid now, so a deadline that fires
    // before `initialize` is answered can still kill the process.
    if (nextTransport instanceof StdioClientTransport && nextTransport.pid !== null) {
      pid = nextTransport.pid;
      trackChildProcess(pid);
    }
    await connecting;
    return nextClient;
  }

  function onClosed(closedClient: Client): void {
    if (closedClient !== client || state !== "connected") return;
    state = "disconnected";
    const detail = stderrSummary();
    options.log(`MCP server ${name} closed its connection${detail}; it will be restarted on the next call.`);
    forgetProcess();
  }

  function forgetProcess(): void {
    if (pid !== null) untrackChildProcess(pid);
    pid = null;
  }

  /** Stops a failed or abandoned attempt at once: no grace for a server that never answered. */
  async function destroy(): Promise<void> {
    const abandoned = client;
    if (pid !== null) signalProcesses([pid, ...listDescendantPids(pid)], "SIGKILL");
    forgetProcess();
    client = undefined;
    transport = undefined;
    await abandoned?.close();
  }

  async function connectWithinDeadline(signal?: AbortSignal): Promise<Client> {
    try {
      const connected = await withDeadline(startupTimeoutMs, signal, open);
      if (state === "closed") throw new McpClientError("MCP_CLOSED", name, "The MCP manager was closed.");
      return connected;
    } catch (error) {
      await destroy();
      if (error instanceof McpClientError) throw error;
      throw new McpClientError(
        "MCP_STARTUP_FAILED",
        name,
        `${describeStartupError(error)}${stderrSummary()}`,
        {
          cause: error,
        },
      );
    }
  }

  async function start(signal?: AbortSignal): Promise<McpToolDefinition[]> {
    const connected = await connectWithinDeadline(signal);
    try {
      const tools = await withDeadline(startupTimeoutMs, signal, (listSignal) =>
        listAllTools(connected, listSignal),
      );
      if (state === "closed") throw new McpClientError("MCP_CLOSED", name, "The MCP manager was closed.");
      state = "connected";
      return tools;
    } catch (error) {
      await destroy();
      throw new McpClientError(
        "MCP_STARTUP_FAILED",
        name,
        `listing tools failed: ${describeStartupError(error)}`,
        {
          cause: error,
        },
      );
    }
  }

  async function reconnect(): Promise<void> {
    if (restarts >= options.reconnect.maxRestarts) {
      state = "dead";
      throw unavailable(`it was restarted ${restarts} times already and is no longer restarted`);
    }
    let lastError: unknown;
    for (let attempt = 0; attempt < options.reconnect.maxAttempts; attempt += 1) {
      if (attempt > 0) {
        const delay = Math.min(
          options.reconnect.baseDelayMs * 2 ** (attempt - 1),
          options.reconnect.maxDelayMs,
        );
        await sleep(delay);
      }
      if (state === "closed") throw new McpClientError("MCP_CLOSED", name, "The MCP manager was closed.");
      try {
        await connectWithinDeadline();
        state = "connected";
        restarts += 1;
        options.log(`MCP server ${name} restarted (restart ${restarts}).`);
        return;
      } catch (error) {
        lastError = error;
        options.log(`MCP server ${name}: restart attempt ${attempt + 1} failed: ${messageOf(error)}`);
      }
    }
    state = "dead";
    throw unavailable(
      `${options.reconnect.maxAttempts} restart attempts failed (last: ${messageOf(lastError)})`,
    );
  }

  function unavailable(reason: string): McpClientError {
    return new McpClientError("MCP_SERVER_UNAVAILABLE", name, `The MCP server ${name} is down: ${reason}.`);
  }

  async function ensureConnected(signal: AbortSignal): Promise<Client> {
    switch (state) {
      case "connected":
        break;
      case "closed":
        throw new McpClientError("MCP_CLOSED", name, "The MCP manager was closed.");
      case "dead":
        throw unavailable("restarting it failed earlier and is not tried again in this run");
      case "idle":
        throw unavailable("it was never started");
      case "disconnected":
        reconnecting ??= reconnect().finally(() => (reconnecting = undefined));
        // Several calls may wait for the same restart; each stops waiting when its own call is cancelled.
        await withDeadline(options.callTimeoutMs, signal, () => reconnecting!);
        break;
    }
    if (!client) throw unavailable("it has no open connection");
    return client;
  }

  async function callTool(
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<McpCallOutcome> {
    const active = await ensureConnected(signal);
    try {
      return await active.callTool({ name: tool, arguments: args }, undefined, {
        signal,
        timeout: options.callTimeoutMs,
      });
    } catch (error) {
      if (error instanceof McpError && error.code === Number(ErrorCode.ConnectionClosed)) {
        throw new McpClientError(
          "MCP_CONNECTION_CLOSED",
          name,
          `The MCP server ${name} closed the connection during the call (it may have crashed); whether the call took effect is unknown.`,
          { cause: error },
        );
      }
      throw error;
    }
  }

  async function close(): Promise<void> {
    state = "closed";
    const closing = client;
    const closingPid = pid ?? (transport instanceof StdioClientTransport ? transport.pid : null);
    const family = closingPid === null ? [] : [closingPid, ...listDescendantPids(closingPid)];
    // The SDK ends stdin and waits before SIGTERM; servers that ignore stdin get SIGTERM sooner.
    const terminate = setTimeout(
      () => signalProcesses(family.filter(isProcessAlive), "SIGTERM"),
      options.closeGraceMs,
    );
    try {
      if (transport instanceof StreamableHTTPClientTransport && transport.sessionId !== undefined) {
        await transport
          .terminateSession()
          .catch((error: unknown) =>
            options.log(`MCP server ${name}: ending the HTTP session failed: ${messageOf(error)}`),
          );
      }
      await closing?.close();
    } finally {
      clearTimeout(terminate);
      // Wrapped servers (npx, sh -c) leave grandchildren the SDK does not know about.
      signalProcesses(family.filter(isProcessAlive), "SIGKILL");
      forgetProcess();
      client = undefined;
      transport = undefined;
    }
  }

  function stderrSummary(): string {
    const tail = stderrTail.replace(/\s+/g, " ").trim();
    if (tail === "") return "";
    return ` (stderr: ${tail.length > STDERR_IN_MESSAGE_CHARS ? `…${tail.slice(-STDERR_IN_MESSAGE_CHARS)}` : tail})`;
  }

  function describeStartupError(error: unknown): string {
    if (error instanceof DeadlineExceededError) return `did not start within ${startupTimeoutMs} ms`;
    if (error instanceof McpError && error.code === Number(ErrorCode.RequestTimeout))
      return `did not answer within ${startupTimeoutMs} ms`;
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    if (code === "ENOENT" && isStdioServer(settings)) return `command not found: ${settings.command}`;
    return messageOf(error);
  }

  return {
    name,
    get state() {
      return state;
    },
    get pid() {
      return pid;
    },
    get restarts() {
      return restarts;
    },
    start,
    callTool,
    close,
  };
}
