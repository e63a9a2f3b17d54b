import { describe, expect, it } from "@jest/globals";
import { parseMockScript } from "../../src/mock-model/mock-script.js";

describe("parseMockScript", () => {
  it("accepts every kind of step, from JSON text too", () => {
    const script = {
      steps: [
        { type: "text", text: "hello", delay_ms: 5 },
        {
          type: "tool_calls",
          calls: [
            { name: "read_file", arguments: { path: "a" } },
            { name: "x", arguments: "{bad" },
          ],
        },
        { type: "error", status: 429, retry_after: "1", model: "gpt-4o", times: 2 },
        { type: "hang", after_headers: true, times: "forever" },
        { type: "text", text: "no usage", usage: null },
      ],
    };
    const result = parseMockScript(JSON.stringify(script));
    expect(result).toEqual({ success: true, value: script });
  });

  it.each([
    [{ steps: [{ type: "text" }] }, "steps[0].text"],
    [
      {
        steps: [
          { type: "text", text: "a" },
          { type: "error", status: 200 },
        ],
      },
      "steps[1].status",
    ],
    [{ steps: [{ type: "tool_calls", calls: [] }] }, "steps[0].calls"],
    [
      { steps: [{ type: "tool_calls", calls: [{ name: "a", arguments: 3 }] }] },
      "steps[0].calls[0].arguments",
    ],
    [{ steps: [{ type: "shout", text: "a" }] }, "steps[0].type"],
    [{ steps: [{ type: "text", text: "a", times: 0 }] }, "steps[0].times"],
    [{ steps: [{ type: "text", text: "a", colour: "red" }] }, "steps[0]"],
    [{ step: [] }, "steps"],
  ])("names the bad field in %j", (script, field) => {
    const result = parseMockScript(script);
    expect(result.success).toBe(false);
    if (!result.success) expect(result.error).toContain(`${field}:`);
  });

  it("reports text that is not JSON", () => {
    const result = parseMockScript("{steps: [");
    expect(result.success).toBe(false);
    if (!result.success) expect(result.error).toMatch(/not valid JSON/);
  });
});
