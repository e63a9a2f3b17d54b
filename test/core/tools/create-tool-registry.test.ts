import { getEventListeners } from "node:events";
import { describe, expect, it } from "@jest/globals";
import { z } from "zod";
import { createToolRegistry } from "../../../src/core/tools/create-tool-registry.js";
import { defineTool, type Tool, type ToolContext } from "../../../src/core/tools/tool.js";
import { okResult } from "../../../src/core/tools/tool-result.js";
import { allowAll, plainSafety } from "../../support/plain-safety.js";

const context: ToolContext = {
  workspaceRoot: "/tmp",
  scratchDir: "/tmp",
  signal: new AbortController().signal,
  runId: "r1",
};
const call = (name: string, args: string, id = "c1") => ({
  id,
  type: "function" as const,
  function: { name, arguments: args },
});

const echo = defineTool({
  name: "echo",
  description: "Echoes text.",
  kind: "read",
  inputSchema: z.object({ text: z.string().describe("what to echo") }),
  execute: async (input) => okResult(input.text, { summary: "echoed" }),
});
const writer = defineTool({
  name: "write_thing",
  description: "Writes.",
  kind: "write",
  inputSchema: z.object({}),
  execute: async () => okResult("written", { summary: "wrote" }),
});

function registry(tools: Tool[], overrides: Partial<Parameters<typeof createToolRegistry>[0]> = {}) {
  return createToolRegistry({
    tools,
    approvalGate: allowAll,
    safety: plainSafety,
    isAllowed: () => true,
    ...overrides,
  });
}

describe("the tool registry", () => {
  it("shows the model a JSON Schema generated from the zod schema", () => {
    const [definition] = registry([echo]).definitions();
    expect(definition?.function.parameters).toMatchObject({
      type: "object",
      properties: { text: { type: "string", description: "what to echo" } },
      required: ["text"],
    });
    expect(definition?.function.parameters).not.toHaveProperty("$schema");
  });

  it("reports the tool's own execution time apart from the pipeline around it", async () => {
    const sleeper = defineTool({
      name: "sleep",
      description: "Sleeps.",
      kind: "read",
      inputSchema: z.object({ ms: z.number() }),
      execute: async (input) => {
        await new Promise((resolve) => setTimeout(resolve, input.ms));
        return okResult("slept", { summary: "slept" });
      },
    });
    // A slow gate before the tool: pipeline time, not the tool's.
    const slowGate = {
      decide: async () => {
        await new Promise((resolve) => setTimeout(resolve, 60));
        return { allowed: true as const, reason: "slow" };
      },
    };
    const invocation = await registry([sleeper], { approvalGate: slowGate }).invoke(
      call("sleep", '{"ms":30}'),
      context,
    );
    expect(invocation.executeMs).toBeGreaterThanOrEqual(25);
    expect(invocation.executeMs).toBeLessThan(invocation.durationMs - 50);
    const refused = await registry([sleeper]).invoke(call("sleep", '{"ms":"x"}'), context);
    expect(refused.executeMs).toBe(0);
  });

  it("answers an unknown tool with TOOL_NOT_FOUND naming the available tools", async () => {
    const invocation = await registry([echo]).invoke(call("nope", "{}"), context);
    expect(invocation.result.error?.error_type).toBe("TOOL_NOT_FOUND");
    expect(invocation.result.recovery_hint).toContain("echo");
  });

  it("turns malformed JSON arguments into INVALID_ARGUMENTS quoting the raw text", async () => {
    const invocation = await registry([echo]).invoke(call("echo", '{"text": "hi"'), context);
    expect(invocation.result.error?.error_type).toBe("INVALID_ARGUMENTS");
    expect(invocation.result.error?.message).toContain('{\\"text\\": \\"hi\\"');
    expect(invocation.rendered).toContain("INVALID_ARGUMENTS");
  });

  it("rejects arguments that do not match the schema, naming the field", async () => {
    const invocation = await registry([echo]).invoke(call("echo", '{"text": 3}'), context);
    expect(invocation.result.error?.error_type).toBe("INVALID_ARGUMENTS");
    expect(invocation.result.error?.message).toContain("text");
  });

  it("refuses a tool outside the allowed set even when the model names it", async () => {
    const reg = registry([echo, writer], { isAllowed: (tool) => tool.kind === "read" });
    expect(reg.definitions().map((definition) => definition.function.name)).toEqual(["echo"]);
    const invocation = await reg.invoke(call("write_thing", "{}"), context);
    expect(invocation.refused).toBe(true);
    expect(invocation.result.error?.error_type).toBe("PERMISSION_DENIED");
  });

  it("asks the approval gate with the tool's described action and refuses with the reason", async () => {
    const seen: unknown[] = [];
    const shell = defineTool({
      name: "shell",
      description: "Runs.",
      kind: "exec",
      inputSchema: z.object({ command: z.string() }),
      describeAction: (input) => ({ command: input.command }),
      execute: async () => {
        throw new Error("must not run");
      },
    });
    const reg = registry([shell], {
      approvalGate: {
        decide: async (request) => (
          seen.push(request),
          { allowed: false, reason: "rm is not allowed", suggestion: "use ls" }
        ),
      },
    });
    const invocation = await reg.invoke(call("shell", '{"command":"rm -rf x"}'), context);
    expect(seen).toEqual([{ toolName: "shell", kind: "exec", command: "rm -rf x" }]);
    expect(invocation.result.error?.error_type).toBe("COMMAND_BLOCKED");
    expect(invocation.result.recovery_hint).toBe("use ls");
  });

  it("stops a tool at its timeout with TOOL_TIMEOUT", async () => {
    const slow = defineTool({
      name: "slow",
      description: "",
      kind: "read",
      inputSchema: z.object({}),
      timeoutMs: 50,
      execute: () => new Promise(() => undefined),
    });
    const invocation = await registry([slow]).invoke(call("slow", "{}"), context);
    expect(invocation.result.error?.error_type).toBe("TOOL_TIMEOUT");
  });

  it("answers CANCELLED when the run is cancelled under a tool that ignores its signal, and aborts the tool's signal", async () => {
    const run = new AbortController();
    let toolSignal: AbortSignal | undefined;
    const stuck = defineTool({
      name: "stuck",
      description: "",
      kind: "read",
      inputSchema: z.object({}),
      execute: (_input, toolContext) => {
        toolSignal = toolContext.signal;
        setTimeout(() => run.abort(new Error("user stopped")), 5);
        return new Promise(() => undefined);
      },
    });
    const invocation = await registry([stuck]).invoke(call("stuck", "{}"), {
      ...context,
      signal: run.signal,
    });
    expect(invocation.result).toMatchObject({
      ok: false,
      status: "cancelled",
      error: { error_type: "CANCELLED" },
    });
    expect(toolSignal?.aborted).toBe(true);
    expect(getEventListeners(run.signal, "abort")).toHaveLength(0);
  });

  it("answers CANCELLED at once for a run already cancelled, and leaves no listener on a finished call", async () => {
    const run = new AbortController();
    await registry([echo]).invoke(call("echo", '{"text":"a"}'), { ...context, signal: run.signal });
    expect(getEventListeners(run.signal, "abort")).toHaveLength(0);
    run.abort();
    const stuck = defineTool({
      name: "stuck",
      description: "",
      kind: "read",
      inputSchema: z.object({}),
      execute: () => new Promise(() => undefined),
    });
    const invocation = await registry([stuck]).invoke(call("stuck", "{}"), {
      ...context,
      signal: run.signal,
    });
    expect(invocation.result.error?.error_type).toBe("CANCELLED");
  });

  it("turns a thrown error into an INTERNAL_ERROR result", async () => {
    const broken = defineTool({
      name: "broken",
      description: "",
      kind: "read",
      inputSchema: z.object({}),
      execute: async () => {
        throw new Error("boom");
      },
    });
    const invocation = await registry([broken]).invoke(call("broken", "{}"), context);
    expect(invocation.result.error?.error_type).toBe("INTERNAL_ERROR");
    expect(invocation.result.error?.message).toContain("boom");
  });

  it("redacts before fencing, and fences the tool's output with its source", async () => {
    const reg = registry([echo], {
      safety: { ...plainSafety, redact: (text) => text.replaceAll("SECRET", "[REDACTED]") },
    });
    const invocation = await reg.invoke(call("echo", '{"text":"a SECRET b"}'), context);
    expect(invocation.rendered).toBe(
      "[echo] ok\n<<<tool:echo>>>\nsummary: echoed\na [REDACTED] b\n<<<end>>>",
    );
    expect(invocation.result.output).toBe("a [REDACTED] b");
  });

  it("runs consecutive read calls concurrently and a write call alone, answering in call order", async () => {
    let running = 0;
    let maxRunning = 0;
    const waitRead = defineTool({
      name: "wait_read",
      description: "",
      kind: "read",
      inputSchema: z.object({ n: z.number() }),
      execute: async (input) => {
        running += 1;
        maxRunning = Math.max(maxRunning, running);
        await new Promise((resolve) => setTimeout(resolve, 30));
        running -= 1;
        return okResult(String(input.n), { summary: "" });
      },
    });
    const reg = registry([waitRead, writer]);
    const results = await reg.invokeBatch(
      [
        call("wait_read", '{"n":1}', "a"),
        call("wait_read", '{"n":2}', "b"),
        call("write_thing", "{}", "c"),
        call("wait_read", '{"n":3}', "d"),
      ],
      context,
    );
    expect(results.map((result) => result.call.id)).toEqual(["a", "b", "c", "d"]);
    expect(maxRunning).toBe(2);
  });

  it("refuses two tools with the same name", () => {
    expect(() => registry([echo, echo])).toThrow(/unique/);
  });
});
