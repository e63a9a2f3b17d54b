import { describe, expect, it } from "@jest/globals";
import { createTokenCounter } from "../../../src/core/context/index.js";
import type { ChatRequestBody } from "../../../src/mock-model/chat-request-body.js";
import { eventsOf, useLoopAgainstServer } from "./loop-against-server.js";

const start = useLoopAgainstServer();

/** A server whose tokenizer and chat template cost 30% more than OpenAI's count, plus its own framing. */
const tokenizer = createTokenCounter("gpt-4o");
function serverCount(body: ChatRequestBody): number {
  let tokens = body.tools === undefined ? 0 : tokenizer.count(JSON.stringify(body.tools));
  for (const message of body.messages) {
    tokens += 7 + tokenizer.count(typeof message.content === "string" ? message.content : "");
    for (const call of message.tool_calls ?? []) tokens += tokenizer.count(JSON.stringify(call));
  }
  return Math.round(tokens * 1.3);
}

const look = (at: string) => ({ type: "tool_calls" as const, calls: [{ name: "look", arguments: { at } }] });

describe("token estimates in the server's tokens", () => {
  it("are within 5% of the server's prompt_tokens from the second request on", async () => {
    const loop = await start(
      { steps: [look("a"), look("b"), look("c"), { type: "text", text: "done" }] },
      { profile: { countPromptTokens: serverCount }, windowTokens: 128_000, outputChars: 3000 },
    );
    const result = await loop.run();
    expect(result.exitReason).toBe("final_answer");
    const estimates = eventsOf(loop.events, "model-call-start").map((event) => event.promptTokensEstimate);
    const reported = eventsOf(loop.events, "model-call-end").map((event) => event.usage.promptTokens);
    expect(estimates).toHaveLength(4);
    const errors = estimates.map(
      (estimate, index) => Math.abs(estimate - (reported[index] ?? 0)) / (reported[index] ?? 1),
    );
    // The first estimate is OpenAI's count: well off this server's.
    expect(errors[0]).toBeGreaterThan(0.1);
    for (const error of errors.slice(1)) expect(error).toBeLessThan(0.05);
  });

  it("the counter scales every count by the last correction", () => {
    const counter = createTokenCounter("local-model");
    const text = "a sentence of ordinary English words to count";
    const raw = counter.count(text);
    counter.calibrate(1000, 1250);
    expect(counter.correction).toBeCloseTo(1.25);
    expect(counter.count(text)).toBe(Math.ceil(raw * 1.25));
    // A report made against corrected counts refines the correction, not restarts it.
    counter.calibrate(1250, 1250);
    expect(counter.correction).toBeCloseTo(1.25);
    counter.calibrate(0, 500);
    expect(counter.correction).toBeCloseTo(1.25);
  });
});
