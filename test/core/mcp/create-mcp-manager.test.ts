import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { operatorConfigSchema } from "../../../src/core/config/operator-config-schema.js";
import { createMcpManager, type McpManager } from "../../../src/core/mcp/create-mcp-manager.js";
import { isProcessAlive } from "../../../src/core/mcp/child-process-reaper.js";
import { MODEL_TOOL_NAME_PATTERN } from "../../../src/core/mcp/mcp-tool-names.js";
import type { Tool, ToolContext } from "../../../src/core/tools/tool.js";
import { EVERYTHING_SERVER, FILESYSTEM_SERVER } from "./fixture-server.js";
import { waitUntil } from "../../support/wait-until.js";

function contextFor(root: string, signal = new AbortController().signal): ToolContext {
  return { workspaceRoot: root, scratchDir: root, signal, runId: "mcp-test" };
}

function toolNamed(tools: readonly Tool[], name: string): Tool {
  const tool = tools.find((candidate) => candidate.name === name);
  if (!tool) throw new Error(`no tool ${name} among ${tools.map((candidate) => candidate.name).join(", ")}`);
  return tool;
}

describe("the MCP manager against the published servers", () => {
  let directory: string;
  let manager: McpManager;
  let tools: Tool[];
  let problems: { server: string; message: string }[];
  const logs: string[] = [];

  beforeAll(async () => {
    directory = await realpath(await mkdtemp(path.join(os.tmpdir(), "agentforge-mcp-")));
    await writeFile(path.join(directory, "notes.txt"), "first line\nsecond line\n", "utf8");
    process.env["AGENTFORGE_TEST_HOST_SECRET"] = "host-secret-value";
    // Through the operator config schema, as the doors will do it.
    const config = operatorConfigSchema.parse({
      mcp_servers: {
        everything: {
          command: process.execPath,
          args: [EVERYTHING_SERVER, "stdio"],
          env: { FROM_CONFIG: "yes" },
        },
        files: { command: process.execPath, args: [FILESYSTEM_SERVER, directory], read_only: true },
      },
    });
    manager = createMcpManager(config.mcp_servers, { log: (message) => logs.push(message) });
    ({ tools, problems } = await manager.start());
  });

  afterAll(async () => {
    delete process.env["AGENTFORGE_TEST_HOST_SECRET"];
    await manager.close();
    await rm(directory, { recursive: true, force: true });
  });

  it("lists every tool of both servers under valid, namespaced names", () => {
    expect(problems).toEqual([]);
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(
      expect.arrayContaining([
        "everything__echo",
        "everything__get-sum",
        "files__read_text_file",
        "files__write_file",
      ]),
    );
    expect(names.every((name) => MODEL_TOOL_NAME_PATTERN.test(name))).toBe(true);
    expect(new Set(names).size).toBe(names.length);
    expect(manager.status().map((entry) => entry.state)).toEqual(["connected", "connected"]);
  });

  it("passes the server's JSON Schema through and marks tools by the operator's read_only, not the server's hints", () => {
    const echo = toolNamed(tools, "everything__echo");
    expect(echo.jsonSchema).toMatchObject({
      type: "object",
      required: ["message"],
      properties: { message: { type: "string" } },
    });
    expect(echo.jsonSchema).not.toHaveProperty("$schema");
    // The server annotates echo readOnlyHint: true; without read_only in our config it still counts as mutating.
    expect(echo.kind).toBe("write");
    expect(echo.source).toBe("mcp:everything");
    expect(toolNamed(tools, "files__write_file").kind).toBe("read");
    expect(echo.inputSchema.safeParse({}).success).toBe(false);
    expect(echo.inputSchema.safeParse({ message: "hi" }).success).toBe(true);
  });

  it("calls tools and returns their text", async () => {
    const echo = await toolNamed(tools, "everything__echo").execute(
      { message: "hello there" },
      contextFor(directory),
    );
    expect(echo).toMatchObject({ ok: true, status: "success" });
    expect(echo.output).toContain("hello there");
    const sum = await toolNamed(tools, "everything__get-sum").execute(
      { a: 19, b: 23 },
      contextFor(directory),
    );
    expect(sum.output).toContain("42");
    const read = await toolNamed(tools, "files__read_text_file").execute(
      { path: path.join(directory, "notes.txt") },
      contextFor(directory),
    );
    expect(read.output).toBe("first line\nsecond line\n");
  });

  it("describes images instead of pasting base64", async () => {
    const image = await toolNamed(tools, "everything__get-tiny-image").execute({}, contextFor(directory));
    expect(image.ok).toBe(true);
    expect(image.output).toMatch(/\[image image\/png, \d+ bytes, not shown\]/);
    expect(image.output.length).toBeLessThan(1_000);
  });

  it("turns a server's error result into MCP_ERROR with the server's text", async () => {
    const outside = await toolNamed(tools, "files__read_text_file").execute(
      { path: "/etc/hostname" },
      contextFor(directory),
    );
    expect(outside).toMatchObject({ ok: false, error: { error_type: "MCP_ERROR" } });
    expect(outside.error?.message).toMatch(/files says: .*(denied|outside|not allowed)/i);
    const invalid = await toolNamed(tools, "everything__get-sum").execute(
      { a: "x", b: 1 },
      contextFor(directory),
    );
    expect(invalid).toMatchObject({ ok: false, error: { error_type: "MCP_ERROR" } });
  });

  it("writes real files through the filesystem server", async () => {
    const target = path.join(directory, "made.txt");
    const result = await toolNamed(tools, "files__write_file").execute(
      { path: target, content: "made by mcp" },
      contextFor(directory),
    );
    expect(result.ok).toBe(true);
    expect(await readFile(target, "utf8")).toBe("made by mcp");
  });

  it("gives a stdio server only PATH, HOME and the configured variables, never the host's secrets", async () => {
    const result = await toolNamed(tools, "everything__get-env").execute({}, contextFor(directory));
    expect(result.output).toContain("FROM_CONFIG");
    expect(result.output).not.toContain("AGENTFORGE_TEST_HOST_SECRET");
    expect(result.output).not.toContain("host-secret-value");
  });

  it("stops both server processes on close", async () => {
    const pids = manager.status().map((entry) => entry.pid);
    expect(pids.every((pid) => typeof pid === "number" && isProcessAlive(pid))).toBe(true);
    const startedAt = Date.now();
    await manager.close();
    const closeMs = Date.now() - startedAt;
    await waitUntil(() => pids.every((pid) => !isProcessAlive(pid!)), "both servers to exit", {
      timeoutMs: 3_000,
    });
    expect(closeMs).toBeLessThan(3_000);
    const afterClose = await toolNamed(tools, "everything__echo").execute(
      { message: "late" },
      contextFor(directory),
    );
    expect(afterClose).toMatchObject({ ok: false, error: { error_type: "MCP_ERROR", recoverable: false } });
  });
});
