import { describe, expect, it } from "@jest/globals";
import { chatBodies, eventsOf, useLoopAgainstServer } from "./loop-against-server.js";

const start = useLoopAgainstServer();

describe("every transcript sent is one a llama.cpp-like server accepts", () => {
  it("echoes unparsable tool-call arguments as {}, quotes the original in the tool result and keeps it in the events", async () => {
    const raw = '{"at": "src/a.ts"';
    const loop = await start({
      steps: [
        { type: "tool_calls", calls: [{ id: "call_1", name: "look", arguments: raw }] },
        { type: "text", text: "done" },
      ],
    });
    const result = await loop.run();
    expect(result).toMatchObject({ exitReason: "final_answer", finalAnswer: "done" });
    expect(loop.looked).toEqual([]);
    const [, second] = chatBodies(loop.server);
    const echoed = second?.messages.find((message) => message.role === "assistant");
    expect(echoed?.tool_calls?.[0]?.function.arguments).toBe("{}");
    const toolMessage = second?.messages.find((message) => message.role === "tool");
    expect(toolMessage?.content).toContain(JSON.stringify(raw));
    expect(toolMessage?.content).toContain("shows {} in their place");
    // The trace is written from these events: the model's own text is kept there.
    expect(eventsOf(loop.events, "model-call-end")[0]?.toolCalls[0]?.function.arguments).toBe(raw);
    expect(eventsOf(loop.events, "tool-call-start")[0]?.arguments).toBe(raw);
  });

  it("repairs unparsable arguments already in a history (a resumed run) before sending it", async () => {
    const loop = await start({ steps: [{ type: "text", text: "fine" }] });
    const result = await loop.run({
      history: [
        { role: "user", content: "look" },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "old", type: "function", function: { name: "look", arguments: "{oops" } }],
        },
        { role: "tool", tool_call_id: "old", content: "error" },
      ],
    });
    expect(result.exitReason).toBe("final_answer");
    expect(chatBodies(loop.server)[0]?.messages[2]?.tool_calls?.[0]?.function.arguments).toBe("{}");
  });

  it("the mock refuses unparsable echoed arguments as llama.cpp does (what the repair is for)", async () => {
    const loop = await start({ steps: [{ type: "text", text: "never" }] });
    const response = await fetch(`${loop.server.url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "m",
        messages: [
          { role: "user", content: "x" },
          {
            role: "assistant",
            content: null,
            tool_calls: [{ id: "a", type: "function", function: { name: "look", arguments: "{oops" } }],
          },
          { role: "tool", tool_call_id: "a", content: "r" },
        ],
      }),
    });
    expect(response.status).toBe(500);
    expect(JSON.stringify(await response.json())).toContain("Failed to parse tool call arguments as JSON");
  });

  it("never sends a transcript that breaks the servers' rules: it stops with the broken rule", async () => {
    const loop = await start({ steps: [{ type: "text", text: "never" }] });
    const result = await loop.run({
      history: [
        { role: "user", content: "look" },
        { role: "tool", tool_call_id: "nobody", content: "orphan" },
      ],
    });
    expect(result.exitReason).toBe("error");
    expect(result.errorMessage).toContain("which no preceding assistant message called");
    expect(chatBodies(loop.server)).toHaveLength(0);
  });

  it("stops at an empty assistant message instead of sending it", async () => {
    const loop = await start({ steps: [{ type: "text", text: "never" }] });
    const result = await loop.run({
      history: [
        { role: "user", content: "look" },
        { role: "assistant", content: "" },
        { role: "user", content: "again" },
      ],
    });
    expect(result.exitReason).toBe("error");
    expect(result.errorMessage).toContain("neither content nor tool calls");
    expect(chatBodies(loop.server)).toHaveLength(0);
  });
});
