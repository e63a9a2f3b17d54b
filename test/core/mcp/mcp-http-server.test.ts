import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createServer, type IncomingMessage, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { createMcpManager } from "../../../src/core/mcp/create-mcp-manager.js";

/** A real streamable-HTTP MCP server (stateless: one server and transport per request). */
function createMcpServer(): Server {
  const server = new Server({ name: "http-fixture", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      {
        name: "shout",
        description: "Upper-case the text.",
        inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
      },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => ({
    content: [{ type: "text", text: String(request.params.arguments?.["text"]).toUpperCase() }],
  }));
  return server;
}

describe("streamable-HTTP MCP servers", () => {
  let http: HttpServer;
  let url: string;
  const authorizations: (string | undefined)[] = [];

  beforeAll(async () => {
    http = createServer((request: IncomingMessage, response) => {
      authorizations.push(request.headers.authorization);
      if (request.headers.authorization !== "Bearer operator-token") {
        response.writeHead(401).end();
        return;
      }
      const transport = new StreamableHTTPServerTransport({});
      const server = createMcpServer();
      response.on("close", () => void transport.close().then(() => server.close()));
      void server.connect(transport).then(() => transport.handleRequest(request, response));
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  });

  afterAll(async () => {
    await new Promise((resolve) => http.close(resolve));
  });

  it("lists and calls tools with the configured headers, and reports a server that refuses or does not exist", async () => {
    const manager = createMcpManager({
      remote: { url, headers: { Authorization: "Bearer operator-token" }, read_only: true },
      refused: { url, headers: { Authorization: "Bearer wrong" }, startup_timeout_ms: 2_000 },
      nowhere: { url: "http://127.0.0.1:9/mcp", startup_timeout_ms: 2_000 },
    });
    try {
      const { tools, problems } = await manager.start();
      expect(tools.map((tool) => tool.name)).toEqual(["remote__shout"]);
      expect(tools[0]!.kind).toBe("read");
      expect(problems.map((problem) => problem.server)).toEqual(["nowhere", "refused"]);
      expect(authorizations).toContain("Bearer operator-token");
      const result = await tools[0]!.execute(
        { text: "quiet" },
        { workspaceRoot: "/", scratchDir: "/", signal: new AbortController().signal, runId: "r" },
      );
      expect(result.output).toBe("QUIET");
      expect(manager.status().find((entry) => entry.server === "remote")).toMatchObject({
        state: "connected",
        pid: null,
      });
    } finally {
      await manager.close();
    }
  });
});
