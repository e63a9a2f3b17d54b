import { describe, expect, it } from "@jest/globals";
import { z } from "zod";
import { runLoop, type RunLoopOptions } from "../../../src/core/loop/run-loop.js";
import type { LoopEvent } from "../../../src/core/loop/loop-events.js";
import { ModelError } from "../../../src/core/model/model-error.js";
import { createToolRegistry } from "../../../src/core/tools/create-tool-registry.js";
import { defineTool, type Tool } from "../../../src/core/tools/tool.js";
import { okResult } from "../../../src/core/tools/tool-result.js";
import { createScriptedModel, type ScriptedTurn } from "../../support/scripted-model.js";
import { allowAll, plainSafety } from "../../support/plain-safety.js";

const look = defineTool({
  name: "look",
  description: "",
  kind: "read",
  inputSchema: z.object({ at: z.string() }),
  execute: async (input) => okResult(`saw ${input.at}`, { summary: "looked" }),
});
const change = defineTool({
  name: "change",
  description: "",
  kind: "write",
  inputSchema: z.object({ n: z.number() }),
  execute: async (input) => okResult(`changed ${input.n}`, { summary: "changed" }),
});

function setup(
  script: ScriptedTurn[],
  overrides: Partial<RunLoopOptions> = {},
  tools: Tool[] = [look, change],
) {
  const model = createScriptedModel(script);
  const events: LoopEvent[] = [];
  const registry = createToolRegistry({
    tools,
    approvalGate: allowAll,
    safety: plainSafety,
    isAllowed: () => true,
  });
  const run = () =>
    runLoop({
      model,
      registry,
      toolContext: {
        workspaceRoot: "/tmp",
        scratchDir: "/tmp",
        signal: new AbortController().signal,
        runId: "r",
      },
      systemPrompt: "sys",
      history: [{ role: "user", content: "do it" }],
      budgets: { maxTurns: 10 },
      onEvent: (event) => events.push(event),
      ...overrides,
    });
  return { model, events, run };
}

const lookAt = (at: string): ScriptedTurn => ({ calls: [{ name: "look", args: { at } }] });

describe("the loop", () => {
  it("finishes with the final answer and walks the states in order", async () => {
    const { run, events } = setup([lookAt("a"), { text: "done" }]);
    const result = await run();
    expect(result).toMatchObject({ exitReason: "final_answer", finalAnswer: "done", turns: 2 });
    const states = events
      .filter((event) => event.type === "state-changed")
      .map((event) => (event.type === "state-changed" ? event.to : ""));
    expect(states).toEqual(["thinking", "executing_tool", "observing", "thinking", "finished"]);
  });

  it("never exceeds max turns", async () => {
    const script = Array.from({ length: 20 }, (_, index) => lookAt(`f${index}`));
    const { run, model } = setup(script, { budgets: { maxTurns: 5 } });
    const result = await run();
    expect(result.exitReason).toBe("max_turns");
    expect(model.requests).toHaveLength(5);
  });

  it("detects the same call three times with no write in between and forces an answer without tools", async () => {
    const { run, model, events } = setup([lookAt("x"), lookAt("x"), lookAt("x"), { text: "I was stuck" }]);
    const result = await run();
    expect(result).toMatchObject({ exitReason: "loop_detected", finalAnswer: "I was stuck" });
    const last = model.requests.at(-1)!;
    expect(last.toolChoice).toBe("none");
    expect(last.tools).toEqual([]);
    expect(events.some((event) => event.type === "loop-detected")).toBe(true);
  });

  it("does not call it a loop when a write happens in between", async () => {
    const { run } = setup([
      lookAt("x"),
      lookAt("x"),
      { calls: [{ name: "change", args: { n: 1 } }] },
      lookAt("x"),
      { text: "ok" },
    ]);
    expect((await run()).exitReason).toBe("final_answer");
  });

  it("detects a short cycle repeating", async () => {
    const { run } = setup([lookAt("a"), lookAt("b"), lookAt("a"), lookAt("b"), { text: "cycle" }]);
    expect((await run()).exitReason).toBe("loop_detected");
  });

  it("stops when the token budget is spent", async () => {
    const { run } = setup([lookAt("a"), lookAt("b"), lookAt("c")], {
      budgets: { maxTurns: 10, maxTotalTokens: 200 },
    });
    const result = await run();
    expect(result.exitReason).toBe("budget_exhausted");
    expect(result.usage.totalTokens).toBe(220);
  });

  it("stops when the cost budget is spent", async () => {
    const { run } = setup([lookAt("a"), lookAt("b"), lookAt("c")], {
      budgets: { maxTurns: 10, maxCostUsd: 0.0015 },
    });
    expect((await run()).exitReason).toBe("budget_exhausted");
  });

  it("stops with timeout when the wall clock budget is spent", async () => {
    let clock = 0;
    const { run } = setup([lookAt("a"), lookAt("b")], {
      budgets: { maxTurns: 10, maxWallClockMs: 1000 },
      now: () => (clock += 600),
    });
    expect((await run()).exitReason).toBe("timeout");
  });

  it("is cancelled through an AbortSignal, even in the middle of a tool", async () => {
    const controller = new AbortController();
    const hang = defineTool({
      name: "hang",
      description: "",
      kind: "read",
      inputSchema: z.object({}),
      execute: () => (setTimeout(() => controller.abort(), 10), new Promise(() => undefined)),
    });
    const { run } = setup(
      [{ calls: [{ name: "hang", args: {} }] }, { text: "never" }],
      { signal: controller.signal },
      [hang],
    );
    expect((await run()).exitReason).toBe("cancelled");
  });

  it("ends with model_error when the model cannot be reached", async () => {
    const { run } = setup([{ error: new ModelError("MODEL_UNAVAILABLE", "all models failed", false) }]);
    const result = await run();
    expect(result.exitReason).toBe("model_error");
    expect(result.errorMessage).toContain("MODEL_UNAVAILABLE");
  });

  it("answers parallel calls by tool_call_id, in order, before the next model call", async () => {
    const { run, model } = setup([
      {
        calls: [
          { name: "look", args: { at: "a" }, id: "A" },
          { name: "nope", args: {}, id: "B" },
          { name: "look", args: "{bad", id: "C" },
        ],
      },
      { text: "done" },
    ]);
    await run();
    const second = model.requests[1]!.messages;
    const tools = second.filter((message) => message.role === "tool");
    expect(tools.map((message) => (message.role === "tool" ? message.tool_call_id : ""))).toEqual([
      "A",
      "B",
      "C",
    ]);
    expect(tools[1]!.content).toContain("TOOL_NOT_FOUND");
    expect(tools[2]!.content).toContain("INVALID_ARGUMENTS");
  });

  it("offers a checkpoint after every model response, before its calls run", async () => {
    const turns: number[] = [];
    const { run } = setup([lookAt("a"), lookAt("b"), { text: "done" }], {
      onModelResponse: (state) => void turns.push(state.turn),
    });
    await run();
    // The final answer runs no call: the runner records the run's end itself.
    expect(turns).toEqual([1, 2]);
  });
});
