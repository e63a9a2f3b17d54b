import { describe, expect, it } from "@jest/globals";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTraceWriter } from "../../../src/core/trace/create-trace-writer.js";
import { parseTrace, readTraceFile } from "../../../src/core/trace/read-trace.js";
import { renderTraceStory } from "../../../src/core/trace/render-trace-story.js";
import { okResult, errorResult } from "../../../src/core/tools/tool-result.js";

function withDir(fn: (dir: string) => Promise<void>) {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentforge-trace-"));
    try {
      await fn(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

const header = {
  run_id: "run-1",
  task: "run",
  user_goal: "fix the bug",
  start_time: "2026-01-01T00:00:00.000Z",
  model: "m",
  config_digest: "abc",
};
const usage = { promptTokens: 10, completionTokens: 2, totalTokens: 12 };

describe("traces", () => {
  it(
    "writes header, events and footer as JSON Lines and tells the run as a story",
    withDir(async (dir) => {
      const path = join(dir, "t.jsonl");
      const writer = createTraceWriter({
        path,
        header,
        redact: (text) => text.replaceAll("sk-secret", "[REDACTED]"),
      });
      writer.onEvent({ type: "text-delta", turn: 1, text: "ignored" });
      writer.onEvent({
        type: "model-call-end",
        turn: 1,
        model: "m",
        usage,
        costUsd: 0.01,
        durationMs: 5,
        toolCalls: [
          { id: "c1", type: "function", function: { name: "read_file", arguments: '{"path":"a.ts"}' } },
        ],
        text: null,
        finishReason: "tool_calls",
      });
      writer.onEvent({
        type: "tool-call-end",
        turn: 1,
        callId: "c1",
        name: "read_file",
        durationMs: 1,
        result: errorResult("FILE_NOT_FOUND", {
          message: "no such file a.ts (key sk-secret)",
          recovery_hint: "glob",
          next_actions: [],
        }),
      });
      writer.onEvent({
        type: "tool-call-end",
        turn: 2,
        callId: "c2",
        name: "read_file",
        durationMs: 1,
        result: okResult("x", { summary: "read src/a.ts" }),
      });
      writer.onEvent({ type: "run-finished", turn: 3, exitReason: "final_answer", finalAnswer: "Fixed it." });
      await writer.close({
        exit_reason: "final_answer",
        turns: 3,
        usage: { prompt_tokens: 30, completion_tokens: 6, total_tokens: 36 },
        cost_usd: 0.03,
      });

      const raw = readFileSync(path, "utf8");
      expect(raw).not.toContain("sk-secret");
      const lines = raw
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
      expect(lines[0]).toMatchObject({
        record: "header",
        schema: "agentforge-trace/1",
        run_id: "run-1",
        user_goal: "fix the bug",
      });
      expect(lines.at(-1)).toMatchObject({ record: "footer", exit_reason: "final_answer" });
      expect(lines.filter((line) => line.event_type === "text-delta")).toHaveLength(0);
      expect(lines[2]).toMatchObject({
        event_type: "tool-call-end",
        step: 1,
        attributes: { "tool_call.name": "read_file", "tool_call.error_type": "FILE_NOT_FOUND" },
      });

      const parsed = await readTraceFile(path);
      if (!parsed.success) throw new Error(parsed.error);
      const story = renderTraceStory(parsed.value);
      expect(story).toContain("Goal: fix the bug");
      expect(story).toMatch(/Turn 1\n.*Model called read_file/);
      expect(story).toContain("→ read_file: error FILE_NOT_FOUND");
      expect(story).toContain("→ read_file: ok — read src/a.ts");
      expect(story).toContain("Stopped: final_answer after 3 turn(s)");
    }),
  );

  it("reads a trace cut by a crash and says so", () => {
    const text = `${JSON.stringify({ record: "header", schema: "agentforge-trace/1", ...header })}\n{"record":"event","event_ty`;
    const parsed = parseTrace(text);
    if (!parsed.success) throw new Error(parsed.error);
    expect(parsed.value.footer).toBeNull();
    expect(parsed.value.problems[0]).toContain("cut off");
    expect(renderTraceStory(parsed.value)).toContain("crashed or is still going");
  });

  it("refuses a trace with a newer schema and says to upgrade", () => {
    const parsed = parseTrace(
      JSON.stringify({ record: "header", schema: "agentforge-trace/2", ...header }).replace(
        '"agentforge-trace/1"',
        '"agentforge-trace/2"',
      ),
    );
    expect(parsed.success).toBe(false);
    if (!parsed.success) expect(parsed.error).toContain("Upgrade agentforge");
  });

  it(
    "appends to an existing trace without a second header when resuming",
    withDir(async (dir) => {
      const path = join(dir, "t.jsonl");
      writeFileSync(
        path,
        `${JSON.stringify({ record: "header", schema: "agentforge-trace/1", ...header })}\n`,
      );
      const writer = createTraceWriter({ path, header, redact: (text) => text, append: true });
      writer.record("run-resumed", 2, { "resume.interrupted_calls": 1 });
      await writer.close({
        exit_reason: "final_answer",
        turns: 3,
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        cost_usd: 0,
      });
      const lines = readFileSync(path, "utf8").trim().split("\n");
      expect(lines.filter((line) => line.includes('"record":"header"'))).toHaveLength(1);
      expect(lines).toHaveLength(3);
    }),
  );
  it(
    "starts a resumed run's trace with a header when its story is not on this machine",
    withDir(async (dir) => {
      const path = join(dir, "carried.jsonl");
      const writer = createTraceWriter({ path, header, redact: (text) => text, append: true });
      writer.record("run-resumed", 4, { "resume.reused_results": 2 });
      await writer.close({
        exit_reason: "final_answer",
        turns: 5,
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        cost_usd: 0,
      });
      const records = readFileSync(path, "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { record: string; run_id?: string });
      expect(records.map((record) => record.record)).toEqual(["header", "event", "footer"]);
      expect(records[0]?.run_id).toBe("run-1");
    }),
  );
  it(
    "redacts every attribute name and value, nested ones and a __proto__ key included, but not its own clock",
    withDir(async (dir) => {
      const path = join(dir, "redacted.jsonl");
      const seen: string[] = [];
      const redact = (text: string): string => {
        seen.push(text);
        return text.replaceAll("s3cr3t", "[REDACTED]");
      };
      const writer = createTraceWriter({ path, header, redact });
      const attributes = JSON.parse(
        '{"tool_call.s3cr3t":"value s3cr3t","nested":{"list":["a s3cr3t",{"__proto__":"s3cr3t in proto"}]}}',
      ) as Record<string, unknown>;
      writer.record("custom-s3cr3t", 1, attributes);
      await writer.close({
        exit_reason: "final_answer",
        turns: 1,
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        cost_usd: 0,
      });
      const text = readFileSync(path, "utf8");
      expect(text).not.toContain("s3cr3t");
      const event = JSON.parse(text.trim().split("\n")[1] ?? "{}") as {
        event_type: string;
        timestamp: string;
        attributes: { nested: { list: [string, Record<string, unknown>] } };
      };
      expect(event.event_type).toBe("custom-[REDACTED]");
      // The __proto__ key is kept as a plain property and its value redacted, not dropped.
      expect(Object.keys(event.attributes.nested.list[1])).toEqual(["__proto__"]);
      expect(text).toContain('"__proto__":"[REDACTED] in proto"');
      // The writer's own timestamp is not content: it never goes through the redactor.
      expect(seen).not.toContain(event.timestamp);
      expect(seen).toContain("tool_call.s3cr3t");
    }),
  );
});
