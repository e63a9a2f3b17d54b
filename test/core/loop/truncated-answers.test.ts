import { describe, expect, it } from "@jest/globals";
import { chatBodies, eventsOf, useLoopAgainstServer } from "./loop-against-server.js";

const start = useLoopAgainstServer();

describe("an answer cut off at the output cap (finish_reason length)", () => {
  it("is not the final answer: the model is asked to continue and the parts are joined", async () => {
    const loop = await start({
      steps: [
        { type: "text", text: "The bug is in ", finish_reason: "length" },
        { type: "text", text: "the parser." },
      ],
    });
    const result = await loop.run();
    expect(result).toMatchObject({ exitReason: "final_answer", finalAnswer: "The bug is in the parser." });
    const second = chatBodies(loop.server)[1];
    const lastTwo = second?.messages.slice(-2);
    expect(lastTwo?.[0]).toMatchObject({ role: "assistant", content: "The bug is in " });
    expect(lastTwo?.[1]?.role).toBe("user");
    expect(String(lastTwo?.[1]?.content)).toContain("cut off at the output-token limit");
  });

  it("never runs a cut-off tool call: its result says it was not run", async () => {
    const loop = await start({
      steps: [
        {
          type: "tool_calls",
          calls: [{ id: "call_cut", name: "look", arguments: '{"at": "src/' }],
          finish_reason: "length",
        },
        // Even a cut call whose arguments happen to parse is not run.
        {
          type: "tool_calls",
          calls: [{ id: "call_cut2", name: "look", arguments: { at: "src" } }],
          finish_reason: "length",
        },
        { type: "text", text: "gave up looking" },
      ],
    });
    const result = await loop.run();
    expect(result).toMatchObject({ exitReason: "final_answer", finalAnswer: "gave up looking" });
    expect(loop.looked).toEqual([]);
    const third = chatBodies(loop.server)[2];
    const toolMessages = third?.messages.filter((message) => message.role === "tool") ?? [];
    expect(toolMessages.map((message) => message.tool_call_id)).toEqual(["call_cut", "call_cut2"]);
    expect(String(toolMessages[0]?.content)).toContain("Not run");
    expect(
      third?.messages.find((message) => message.role === "assistant")?.tool_calls?.[0]?.function.arguments,
    ).toBe("{}");
    expect(eventsOf(loop.events, "tool-call-refused").map((event) => event.callId)).toEqual([
      "call_cut",
      "call_cut2",
    ]);
    expect(eventsOf(loop.events, "tool-call-start")).toEqual([]);
  });

  it("stops after three cut-off answers in a row, saying how to raise the cap", async () => {
    const loop = await start({
      steps: [{ type: "text", text: "and so on ", finish_reason: "length", times: 3 }],
    });
    const result = await loop.run();
    expect(result.exitReason).toBe("budget_exhausted");
    expect(result.errorMessage).toContain("max_output_tokens");
    expect(result.finalAnswer).toBe("and so on and so on and so on ");
    expect(chatBodies(loop.server)).toHaveLength(3);
  });
});

describe("generation settings", () => {
  it("sends a default output cap as max_tokens, and no temperature unless one is set", async () => {
    const loop = await start({ steps: [{ type: "text", text: "ok" }] });
    await loop.run();
    const body = chatBodies(loop.server)[0] as Record<string, unknown> | undefined;
    expect(body?.["max_tokens"]).toBe(4096);
    expect(body).not.toHaveProperty("temperature");
    expect(body).not.toHaveProperty("max_completion_tokens");
  });

  it("sends the configured cap and temperature", async () => {
    const loop = await start(
      { steps: [{ type: "text", text: "ok" }] },
      { client: { generation: { maxOutputTokens: 300, temperature: 0.2 } } },
    );
    await loop.run();
    const body = chatBodies(loop.server)[0] as Record<string, unknown> | undefined;
    expect(body).toMatchObject({ max_tokens: 300, temperature: 0.2 });
  });
});
