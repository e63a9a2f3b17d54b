import { describe, expect, it } from "@jest/globals";
import { createOpenAIModelClient } from "../../../src/core/model/create-openai-model-client.js";
import { chatBodies, useLoopAgainstServer } from "./loop-against-server.js";

const start = useLoopAgainstServer();

describe("a server that cannot take tool calls for this model", () => {
  it("stops the run at the first turn when the probe said so, naming the cause and the fixes", async () => {
    const loop = await start({ steps: [{ type: "text", text: "never" }] });
    const model = createOpenAIModelClient({
      model: "local-model",
      baseURL: loop.server.url,
      capabilities: { supportsTools: false },
    });
    const result = await loop.run({ model });
    expect(result).toMatchObject({ exitReason: "model_error", turns: 1 });
    expect(result.errorMessage).toContain("MODEL_TOOLS_UNSUPPORTED");
    expect(result.errorMessage).toContain("--jinja");
    expect(result.errorMessage).toContain("another model");
    expect(chatBodies(loop.server)).toHaveLength(0);
  });

  it("stops when tool-call markup comes back as text instead of becoming the final answer", async () => {
    const loop = await start({
      steps: [
        { type: "text", text: '<tool_call>\n{"name": "look", "arguments": {"at": "a"}}\n</tool_call>' },
      ],
    });
    const result = await loop.run();
    expect(result).toMatchObject({ exitReason: "model_error", finalAnswer: null, turns: 1 });
    expect(result.errorMessage).toContain("wrote a tool call as text (<tool_call>)");
    expect(result.errorMessage).toContain("--jinja");
  });

  it("lets an answer that only mentions tools through", async () => {
    const loop = await start({ steps: [{ type: "text", text: "I used the look tool; all is well." }] });
    const result = await loop.run();
    expect(result).toMatchObject({ exitReason: "final_answer" });
  });
});
