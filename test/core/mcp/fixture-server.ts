import { writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
const sdk = (file: string): string =>
  JSON.stringify(path.join(repoRoot, "node_modules/@modelcontextprotocol/sdk/dist/esm", file));

export const EVERYTHING_SERVER = path.join(
  repoRoot,
  "node_modules/@modelcontextprotocol/server-everything/dist/index.js",
);
export const FILESYSTEM_SERVER = path.join(
  repoRoot,
  "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js",
);

/**
 * A small stdio MCP server built on the SDK, for what the published servers cannot do on demand:
 * crash during a call, hang or answer late, refuse to start, leak a secret, or name a tool as a test needs.
 * Env: FIXTURE_TOOL_PREFIX (prefix on every tool name), FIXTURE_REFUSE_START_IF_EXISTS (a path),
 * FIXTURE_IGNORE_STDIN_END and FIXTURE_STDIN_END_FILE (below).
 */
const SOURCE = `
import { existsSync, writeFileSync } from "node:fs";

const refuseFile = process.env.FIXTURE_REFUSE_START_IF_EXISTS;
if (refuseFile && existsSync(refuseFile)) {
  process.stderr.write("fixture refuses to start\\n");
  process.exit(7);
}
const { Server } = await import(${sdk("server/index.js")});
const { StdioServerTransport } = await import(${sdk("server/stdio.js")});
const { CallToolRequestSchema, ListToolsRequestSchema } = await import(${sdk("types.js")});
const prefix = process.env.FIXTURE_TOOL_PREFIX ?? "";
const objectSchema = (properties = {}, required = []) => ({ type: "object", properties, required });
const tools = [
  { name: "echo", description: "Echo the text.", inputSchema: objectSchema({ text: { type: "string" } }, ["text"]) },
  { name: "whoami", description: "The server's pid.", inputSchema: objectSchema() },
  { name: "crash", description: "Exit during the call.", inputSchema: objectSchema() },
  { name: "hang", description: "Never answer.", inputSchema: objectSchema() },
  { name: "slow", description: "Answer after ms milliseconds.", inputSchema: objectSchema({ ms: { type: "number" } }, ["ms"]) },
  { name: "leak", description: "Return a secret and a forged fence.", inputSchema: objectSchema() },
  { name: "picture", description: "Return an image.", inputSchema: objectSchema() },
  { name: "fail", description: "Return an error result.", inputSchema: objectSchema() },
  { name: "env", description: "List the environment variable names.", inputSchema: objectSchema() },
];
const server = new Server({ name: "fixture", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: tools.map((tool) => ({ ...tool, name: prefix + tool.name })),
}));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const name = request.params.name.slice(prefix.length);
  const args = request.params.arguments ?? {};
  const text = (value) => ({ content: [{ type: "text", text: value }] });
  switch (name) {
    case "echo": return text(String(args.text));
    case "whoami": return text("pid " + process.pid);
    case "crash": process.exit(3);
    case "hang": return new Promise(() => {});
    case "slow": return new Promise((resolve) => setTimeout(() => resolve(text("slept " + args.ms)), Number(args.ms)));
    case "leak": return text(process.env.FIXTURE_LEAK_TEXT ?? "");
    case "picture": return { content: [{ type: "image", data: "aGVsbG8gd29ybGQ=", mimeType: "image/png" }, { type: "text", text: "a picture" }] };
    case "fail": return { isError: true, content: [{ type: "text", text: "the fixture failed on purpose" }] };
    case "env": return text(Object.keys(process.env).sort().join(","));
    default: return { isError: true, content: [{ type: "text", text: "unknown tool " + name }] };
  }
});
// Stays alive while stdin is open, like any stdio server; a hung tool keeps a timer alive.
setInterval(() => {}, 1 << 30);
// FIXTURE_IGNORE_STDIN_END plays a server that does not notice its client went away;
// FIXTURE_STDIN_END_FILE is written when stdin ends, so a test knows that moment has passed.
process.stdin.on("end", () => {
  if (process.env.FIXTURE_STDIN_END_FILE) writeFileSync(process.env.FIXTURE_STDIN_END_FILE, "");
  if (!process.env.FIXTURE_IGNORE_STDIN_END) process.exit(0);
});
await server.connect(new StdioServerTransport());
`;

export async function writeFixtureServer(directory: string): Promise<string> {
  const file = path.join(directory, "fixture-server.mjs");
  await writeFile(file, SOURCE, "utf8");
  return file;
}
