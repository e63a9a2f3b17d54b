import { describe, expect, it } from "@jest/globals";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readTracedCallEnds } from "../../../src/core/trace/read-traced-call-ends.js";

const header = { record: "header", schema: "agentforge-trace/1", run_id: "r", task: "run", user_goal: "g" };
const end = (step: number, id: string) => ({
  record: "event",
  event_type: "tool-call-end",
  step,
  timestamp: "2026-01-01T00:00:00.000Z",
  attributes: { "tool_call.id": id },
});

describe("readTracedCallEnds", () => {
  it("returns the ids of the calls whose end the trace tells in that turn only", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentforge-traced-"));
    try {
      const path = join(dir, "trace.jsonl");
      const start = { ...end(3, "call_b"), event_type: "tool-call-start" };
      const lines = [header, end(2, "call_a"), end(3, "call_a"), start, end(3, "call_c")];
      // A crash can cut the last line: it is ignored, the rest still counts.
      writeFileSync(path, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n{"record":"ev`);
      expect([...(await readTracedCallEnds(path, 3))].sort()).toEqual(["call_a", "call_c"]);
      expect([...(await readTracedCallEnds(path, 2))]).toEqual(["call_a"]);
      expect((await readTracedCallEnds(path, 4)).size).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("tells none for a missing trace or a file that is not a trace", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentforge-traced-"));
    try {
      expect((await readTracedCallEnds(join(dir, "missing.jsonl"), 1)).size).toBe(0);
      const other = join(dir, "other.jsonl");
      writeFileSync(other, `${JSON.stringify(end(1, "call_a"))}\n`);
      expect((await readTracedCallEnds(other, 1)).size).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
