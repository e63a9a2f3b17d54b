import { mkdtemp, mkdir, writeFile } from "node:fs/promises";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import type { MockStep } from "../../../src/mock-model/mock-script.js";
import { writeFixtureServer } from "../mcp/fixture-server.js";
import type { OperatorKeyCase } from "./operator-key-case.js";
import { runWithOperatorConfig, toolMessagesSeen, toolsOffered } from "./run-with-operator-config.js";

/** Files the cases share (the MCP fixture server, a skill root); removed by the test file. */
export const extensionCaseDirectory = await mkdtemp(path.join(os.tmpdir(), "agentforge-operator-ext-"));
const fixture = await writeFixtureServer(extensionCaseDirectory);
const skillRoot = path.join(extensionCaseDirectory, "skills");
await mkdir(path.join(skillRoot, "probe-skill"), { recursive: true });
await writeFile(
  path.join(skillRoot, "probe-skill", "SKILL.md"),
  "---\nname: probe-skill\ndescription: Shows that the operator's skill roots are read.\n---\nUse it.\n",
);

const done: MockStep = { type: "text", text: "done" };
const call = (name: string, args: Record<string, unknown>): MockStep => ({
  type: "tool_calls",
  calls: [{ name, arguments: args }],
});
const server = (settings: Record<string, unknown> = {}) => ({
  mcp_servers: {
    fx: { command: process.execPath, args: [fixture], startup_timeout_ms: 30_000, ...settings },
  },
});

async function offered(config: Record<string, unknown>): Promise<string[]> {
  return toolsOffered(await runWithOperatorConfig({ config, steps: [done] })).filter((name) =>
    name.startsWith("fx__"),
  );
}

async function firstToolMessage(
  config: Record<string, unknown>,
  steps: readonly MockStep[],
): Promise<string> {
  return toolMessagesSeen(await runWithOperatorConfig({ config, steps }))[0] ?? "";
}

/** Stands for the address of the recording HTTP endpoint below, which each run starts anew. */
const MCP_URL = "http://mcp.invalid/replaced-by-the-endpoint";

/** An HTTP endpoint that records the requests an MCP client sends it, and refuses them. */
async function recordHttpMcpRequests(config: Record<string, unknown>): Promise<IncomingHttpHeaders[]> {
  const seen: IncomingHttpHeaders[] = [];
  const http = createServer((request, response) => {
    seen.push(request.headers);
    request.resume();
    response.writeHead(500).end();
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  try {
    const { port } = http.address() as AddressInfo;
    const text = JSON.stringify(config).replaceAll(MCP_URL, `http://127.0.0.1:${port}/mcp`);
    await runWithOperatorConfig({ config: JSON.parse(text) as Record<string, unknown>, steps: [done] });
    return seen;
  } finally {
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
  }
}

const web = (settings: Record<string, unknown> = {}) => ({
  mcp_servers: { web: { url: MCP_URL, startup_timeout_ms: 2_000, ...settings } },
});

export const extensionKeyCases: readonly OperatorKeyCase[] = [
  {
    keys: ["mcp_servers", "mcp_servers.*.command"],
    title: "mcp_servers.command starts a server whose tools the model is offered",
    baseline: {},
    changed: server(),
    observe: async (config) => (await offered(config)).includes("fx__echo"),
    expected: { baseline: false, changed: true },
  },
  {
    keys: ["mcp_servers.*.args"],
    title: "mcp_servers.args reach the server's command",
    baseline: server({ args: ["--eval", "process.exit(3)"] }),
    changed: server(),
    observe: async (config) => (await offered(config)).includes("fx__echo"),
    expected: { baseline: false, changed: true },
  },
  {
    keys: ["mcp_servers.*.env"],
    title: "mcp_servers.env reaches the server's environment",
    baseline: server(),
    changed: server({ env: { FIXTURE_TOOL_PREFIX: "renamed_" } }),
    observe: async (config) => (await offered(config)).includes("fx__renamed_echo"),
    expected: { baseline: false, changed: true },
  },
  {
    keys: ["mcp_servers.*.read_only"],
    title: "mcp_servers.read_only lets a run that asks nobody call the server's tools",
    baseline: server(),
    changed: server({ read_only: true }),
    observe: async (config) =>
      (await firstToolMessage(config, [call("fx__echo", { text: "echoed-back" }), done])).includes(
        "echoed-back",
      ),
    expected: { baseline: false, changed: true },
  },
  {
    keys: ["mcp_servers.*.startup_timeout_ms"],
    title: "mcp_servers.startup_timeout_ms skips a server that starts too slowly",
    baseline: server({ command: "sh", args: ["-c", `sleep 0.5; exec "${process.execPath}" "${fixture}"`] }),
    changed: {
      mcp_servers: {
        fx: {
          command: "sh",
          args: ["-c", `sleep 0.5; exec "${process.execPath}" "${fixture}"`],
          startup_timeout_ms: 100,
        },
      },
    },
    observe: async (config) => (await offered(config)).includes("fx__echo"),
    expected: { baseline: true, changed: false },
  },
  {
    keys: ["mcp_servers.*.url"],
    title: "mcp_servers.url connects to a server over HTTP",
    baseline: {},
    changed: web(),
    observe: async (config) => (await recordHttpMcpRequests(config)).length > 0,
    expected: { baseline: false, changed: true },
  },
  {
    keys: ["mcp_servers.*.headers"],
    title: "mcp_servers.headers are sent with the requests to an HTTP server",
    baseline: web(),
    changed: web({ headers: { "x-operator-probe": "sent" } }),
    observe: async (config) =>
      (await recordHttpMcpRequests(config)).some((headers) => headers["x-operator-probe"] === "sent"),
    expected: { baseline: false, changed: true },
  },
  {
    keys: ["timeouts.tool_ms"],
    title: "timeouts.tool_ms ends a tool call without a timeout of its own",
    baseline: server({ read_only: true }),
    changed: { ...server({ read_only: true }), timeouts: { tool_ms: 200 } },
    observe: async (config) =>
      (await firstToolMessage(config, [call("fx__slow", { ms: 800 }), done])).includes("slept 800"),
    expected: { baseline: true, changed: false },
  },
  {
    keys: ["skill_roots"],
    title: "skill_roots offers the skills found there",
    baseline: {},
    changed: { skill_roots: [skillRoot] },
    observe: async (config) => {
      const run = await runWithOperatorConfig({ config, steps: [done] });
      return JSON.stringify(run.requests[0]?.body?.messages ?? []).includes("probe-skill");
    },
    expected: { baseline: false, changed: true },
  },
];
