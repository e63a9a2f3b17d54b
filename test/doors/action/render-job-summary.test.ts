import { describe, expect, it } from "@jest/globals";
import { renderJobSummary } from "../../../src/doors/action/render-job-summary.js";
import type { ParsedTrace } from "../../../src/core/trace/read-trace.js";
import type { TraceEvent } from "../../../src/core/trace/trace-format.js";

function event(eventType: string, step: number, attributes: Record<string, unknown>): TraceEvent {
  return { record: "event", event_type: eventType, step, timestamp: "2026-01-01T00:00:00.000Z", attributes };
}

const trace: ParsedTrace = {
  header: {
    record: "header",
    schema: "agentforge-trace/1",
    run_id: "r1",
    task: "run",
    user_goal: "fix it",
    start_time: "2026-01-01T00:00:00.000Z",
    model: "mock-model",
    config_digest: "x",
  },
  events: [
    event("tool-call-start", 1, {
      "tool_call.id": "a",
      "tool_call.name": "shell",
      "tool_call.arguments": '{"command":"grep -n a|b src"}',
    }),
    event("tool-call-end", 1, {
      "tool_call.id": "a",
      "tool_call.name": "shell",
      "tool_call.ok": true,
      "tool_call.summary": "exit 0\nfound <b>",
    }),
    event("tool-call-start", 2, {
      "tool_call.id": "b",
      "tool_call.name": "read_file",
      "tool_call.arguments": "{not json",
    }),
    event("tool-call-end", 2, {
      "tool_call.id": "b",
      "tool_call.name": "read_file",
      "tool_call.ok": false,
      "tool_call.error_type": "INVALID_ARGUMENTS",
      "tool_call.summary": "bad arguments",
    }),
    event("tool-call-start", 3, {
      "tool_call.id": "c",
      "tool_call.name": "shell",
      "tool_call.arguments": '{"command":"rm -rf /"}',
    }),
    event("tool-call-refused", 3, {
      "tool_call.id": "c",
      "tool_call.name": "shell",
      "refusal.reason": "dangerous",
    }),
    event("tool-call-end", 3, {
      "tool_call.id": "c",
      "tool_call.name": "shell",
      "tool_call.ok": false,
      "tool_call.error_type": "COMMAND_BLOCKED",
    }),
  ],
  footer: {
    record: "footer",
    finish_time: "2026-01-01T00:01:00.000Z",
    exit_reason: "final_answer",
    turns: 3,
    usage: { prompt_tokens: 900, completion_tokens: 100, total_tokens: 1000 },
    cost_usd: 0.0123,
  },
  problems: [],
};

describe("renderJobSummary", () => {
  it("shows the figures and one row per step, with table cells kept intact", () => {
    const markdown = renderJobSummary({ headline: "run finished", trace, tracePath: "/t/trace.jsonl" });
    expect(markdown).toContain("## AgentForge: run finished");
    expect(markdown).toContain("| final_answer | 3 | 1000 (900 / 100) | $0.0123 | mock-model |");
    expect(markdown).toContain("| 1 | shell grep -n a\\|b src | ✅ exit 0 found &lt;b&gt; |");
    expect(markdown).toContain("| 2 | read_file {not json | ❌ INVALID_ARGUMENTS bad arguments |");
    expect(markdown).toContain("| 3 | shell rm -rf / | 🚫 refused: dangerous |");
    expect(markdown).not.toContain("COMMAND_BLOCKED");
    expect(markdown).toContain("`/t/trace.jsonl`");
  });

  it("says the cost is unknown when the model had no known price, never $0", () => {
    const footer = trace.footer === null ? null : { ...trace.footer, cost_usd: null };
    const markdown = renderJobSummary({ headline: "run finished", trace: { ...trace, footer } });
    expect(markdown).toContain("| final_answer | 3 | 1000 (900 / 100) | cost unknown | mock-model |");
    expect(markdown).not.toContain("$0");
  });

  it("says a run without a footer is unfinished", () => {
    const markdown = renderJobSummary({ headline: "x", trace: { ...trace, footer: null } });
    expect(markdown).toContain("| (unfinished) |");
  });
});
