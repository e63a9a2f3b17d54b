import { describe, expect, it } from "@jest/globals";
import { chatBodies, eventsOf, useLoopAgainstServer } from "./loop-against-server.js";

const start = useLoopAgainstServer();

const look = (at: string) => ({ type: "tool_calls" as const, calls: [{ name: "look", arguments: { at } }] });

describe("a server that says the request does not fit its context", () => {
  it("gets one retry after forced compaction, even when the harness assumed a far larger window", async () => {
    const loop = await start(
      { steps: [look("a"), look("b"), look("c"), { type: "text", text: "done" }] },
      { profile: { contextWindow: 3000 }, windowTokens: 128_000, outputChars: 4000 },
    );
    const result = await loop.run();
    expect(result).toMatchObject({ exitReason: "final_answer", finalAnswer: "done" });
    const refused = loop.server.requests.filter(
      (request) => request.body !== undefined && request.stepIndex === undefined,
    );
    expect(refused).toHaveLength(1);
    expect(eventsOf(loop.events, "context-pruned").length).toBeGreaterThan(0);
    const bodies = chatBodies(loop.server);
    expect(bodies).toHaveLength(5);
    expect(JSON.stringify(bodies[4]?.messages).length).toBeLessThan(
      JSON.stringify(bodies[3]?.messages).length / 2,
    );
  });

  it("stops after the retry, saying the context was too small and how big it was", async () => {
    const loop = await start(
      { steps: [{ type: "text", text: "never" }] },
      { profile: { contextWindow: 4096, countPromptTokens: () => 5000 }, windowTokens: 128_000 },
    );
    const result = await loop.run();
    expect(result.exitReason).toBe("budget_exhausted");
    expect(result.errorMessage).toContain("context window of 4096 tokens is too small");
    expect(result.errorMessage).toContain("5000 tokens by the server's count");
    expect(chatBodies(loop.server)).toHaveLength(2);
  });
});
