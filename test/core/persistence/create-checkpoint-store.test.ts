import { describe, expect, it } from "@jest/globals";
import { appendFile, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createCheckpointStore } from "../../../src/core/persistence/create-checkpoint-store.js";
import { PersistenceError } from "../../../src/core/persistence/persistence-error.js";
import { planResume } from "../../../src/core/persistence/plan-resume.js";
import { runPaths } from "../../../src/core/persistence/run-paths.js";
import { okResult } from "../../../src/core/tools/tool-result.js";
import { makeCheckpoint, toolCall } from "./checkpoint-fixtures.js";
import { withTempDir } from "./persistence-test-helpers.js";
import { temporaryPathFor } from "../../../src/core/persistence/write-file-atomic.js";

const isPosix = process.platform !== "win32";

async function modeOf(path: string): Promise<number> {
  return (await stat(path)).mode & 0o777;
}

describe("checkpoint store", () => {
  it("round-trips a checkpoint with private directories and files", async () => {
    await withTempDir(async (root) => {
      const dataDir = join(root, "data");
      const store = createCheckpointStore(dataDir);
      const checkpoint = makeCheckpoint("run-1", {
        turn: 3,
        history: [
          { role: "user", content: "go" },
          { role: "assistant", content: null, tool_calls: [toolCall("c1", "read_file", { path: "a.ts" })] },
          { role: "tool", tool_call_id: "c1", content: "const a = 1;" },
          { role: "assistant", content: "done" },
        ],
        completedToolCalls: {
          c1: { name: "read_file", result: okResult("const a = 1;", { summary: "read a.ts" }) },
        },
        usage: { promptTokens: 120, completionTokens: 30, totalTokens: 150, costUsd: 0.0012 },
        tracePath: "/tmp/trace.jsonl",
        status: "finished",
        exitReason: "final_answer",
        task: {
          prompt: "go",
          workspaceRoot: "/w",
          mode: "plan",
          approvalMode: "on-request",
          allowPrefixes: [],
          untrustedInputs: [{ source: "issue #4", text: "please" }],
          settings: { model: "gpt-x", contextWindow: 8000 },
        },
      });
      await store.save("run-1", checkpoint);
      expect(await store.load("run-1")).toEqual(checkpoint);

      const paths = runPaths(dataDir, "run-1");
      const document = JSON.parse(await readFile(paths.checkpoint, "utf8")) as Record<string, unknown>;
      expect(document["schema"]).toBe("agentforge-checkpoint/1");
      if (isPosix) {
        for (const dir of [dataDir, join(dataDir, "runs"), paths.dir, paths.scratch])
          expect(await modeOf(dir)).toBe(0o700);
        expect(await modeOf(paths.checkpoint)).toBe(0o600);
      }
    });
  });

  it("refuses to save an invalid checkpoint or one under another id", async () => {
    await withTempDir(async (dataDir) => {
      const store = createCheckpointStore(dataDir);
      await expect(store.save("run-2", makeCheckpoint("run-1"))).rejects.toMatchObject({
        code: "INVALID_ID",
      });
      await expect(store.save("run-1", makeCheckpoint("run-1", { turn: -1 }))).rejects.toMatchObject({
        code: "SCHEMA_INVALID",
      });
      await expect(store.save("../escape", makeCheckpoint("../escape"))).rejects.toMatchObject({
        code: "INVALID_ID",
      });
      await expect(store.load("../../etc")).rejects.toMatchObject({ code: "INVALID_ID" });
    });
  });

  it("a missing checkpoint is NOT_FOUND", async () => {
    await withTempDir(async (dataDir) => {
      const store = createCheckpointStore(dataDir);
      await expect(store.load("nope")).rejects.toMatchObject({ code: "NOT_FOUND" });
    });
  });

  it("refuses a checkpoint written by a newer agentforge, saying what to do", async () => {
    await withTempDir(async (dataDir) => {
      const store = createCheckpointStore(dataDir);
      await store.save("run-1", makeCheckpoint("run-1"));
      const paths = runPaths(dataDir, "run-1");
      const document = JSON.parse(await readFile(paths.checkpoint, "utf8")) as Record<string, unknown>;
      await writeFile(paths.checkpoint, JSON.stringify({ ...document, schema: "agentforge-checkpoint/7" }));
      const error = (await store.load("run-1").catch((caught: unknown) => caught)) as PersistenceError;
      expect(error).toBeInstanceOf(PersistenceError);
      expect(error.code).toBe("SCHEMA_TOO_NEW");
      expect(error.message).toContain(paths.checkpoint);
      expect(error.message).toContain("agentforge-checkpoint/7");
      expect(error.message).toContain("agentforge-checkpoint/1");
      expect(error.message).toMatch(/upgrade agentforge/i);
    });
  });

  it("refuses checkpoints with a missing or foreign schema, or broken JSON", async () => {
    await withTempDir(async (dataDir) => {
      const store = createCheckpointStore(dataDir);
      await store.save("run-1", makeCheckpoint("run-1"));
      const paths = runPaths(dataDir, "run-1");
      const document = JSON.parse(await readFile(paths.checkpoint, "utf8")) as Record<string, unknown>;
      for (const schema of [undefined, "agentforge-trace/1", "agentforge-checkpoint/x", "checkpoint/1"]) {
        await writeFile(paths.checkpoint, JSON.stringify({ ...document, schema }));
        await expect(store.load("run-1")).rejects.toMatchObject({ code: "SCHEMA_INVALID" });
      }
      await writeFile(paths.checkpoint, JSON.stringify({ ...document, status: "paused" }));
      await expect(store.load("run-1")).rejects.toMatchObject({ code: "SCHEMA_INVALID" });
      await writeFile(paths.checkpoint, "{");
      await expect(store.load("run-1")).rejects.toMatchObject({ code: "SCHEMA_INVALID" });
    });
  });

  it("lists runs and reports unreadable ones", async () => {
    await withTempDir(async (dataDir) => {
      const store = createCheckpointStore(dataDir);
      expect(await store.list()).toEqual({ checkpoints: [], problems: [] });
      await store.save("b-run", makeCheckpoint("b-run", { turn: 2 }));
      await store.save("a-run", makeCheckpoint("a-run", { status: "stopped" }));
      await store.prepareRun("c-no-checkpoint-yet");
      await store.save("d-bad", makeCheckpoint("d-bad"));
      await writeFile(
        runPaths(dataDir, "d-bad").checkpoint,
        JSON.stringify({ schema: "agentforge-checkpoint/9" }),
      );
      const listing = await store.list();
      expect(listing.checkpoints.map((summary) => [summary.runId, summary.status, summary.turn])).toEqual([
        ["a-run", "stopped", 0],
        ["b-run", "running", 2],
      ]);
      expect(listing.problems).toHaveLength(1);
      expect(listing.problems[0]).toContain("newer agentforge");
    });
  });

  it("journals tool calls durably and merges them for resume", async () => {
    await withTempDir(async (dataDir) => {
      const store = createCheckpointStore(dataDir);
      const calls = [toolCall("c1", "read_file"), toolCall("c2", "shell"), toolCall("c3", "write_file")];
      // The loop saves after the model answered, before running the tools.
      await store.save(
        "run-1",
        makeCheckpoint("run-1", {
          turn: 1,
          history: [
            { role: "user", content: "go" },
            { role: "assistant", content: null, tool_calls: calls },
          ],
        }),
      );
      const result = okResult("contents", { summary: "read" });
      await store.markToolCallStarted("run-1", "c1", "read_file");
      await store.markToolCallCompleted("run-1", "c1", {
        name: "read_file",
        result,
        content: "[read_file] ok\ncontents",
      });
      await store.markToolCallStarted("run-1", "c2", "shell");
      // crash here: c2 started, never completed; c3 never started

      const journalPath = runPaths(dataDir, "run-1").journal;
      const lines = (await readFile(journalPath, "utf8"))
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
      expect(lines[0]).toMatchObject({ schema: "agentforge-journal/1", runId: "run-1" });
      expect(lines.slice(1).map((line) => [line.type, line.callId])).toEqual([
        ["tool-call-started", "c1"],
        ["tool-call-completed", "c1"],
        ["tool-call-started", "c2"],
      ]);
      if (isPosix) expect(await modeOf(journalPath)).toBe(0o600);

      // A fresh store (a new process) resumes from disk.
      const resumed = await createCheckpointStore(dataDir).loadForResume("run-1");
      expect(resumed.problems).toEqual([]);
      expect(Object.keys(resumed.checkpoint.completedToolCalls)).toEqual(["c1"]);
      const plan = planResume(resumed.checkpoint, { startedCallIds: resumed.startedCallIds });
      expect(plan.reusedResults.map((reused) => reused.callId)).toEqual(["c1"]);
      expect(plan.interruptedCalls.map((interrupted) => interrupted.callId)).toEqual(["c2"]);
      expect(plan.pendingCalls.map((pending) => pending.id)).toEqual(["c3"]);
      expect(plan.history.at(2)).toEqual({
        role: "tool",
        tool_call_id: "c1",
        content: "[read_file] ok\ncontents",
      });
    });
  });

  it("resume removes the temp file a crashed save left behind", async () => {
    await withTempDir(async (dataDir) => {
      const store = createCheckpointStore(dataDir);
      await store.save("run-1", makeCheckpoint("run-1"));
      const paths = runPaths(dataDir, "run-1");
      await writeFile(temporaryPathFor(paths.checkpoint), '{"partial');
      expect(await readdir(paths.dir)).toHaveLength(3);
      await store.loadForResume("run-1");
      expect((await readdir(paths.dir)).sort()).toEqual(["checkpoint.json", "scratch"]);
    });
  });

  it("tolerates a journal whose last marker was torn by a crash", async () => {
    await withTempDir(async (dataDir) => {
      const store = createCheckpointStore(dataDir);
      await store.markToolCallStarted("run-1", "c1", "shell");
      const journalPath = runPaths(dataDir, "run-1").journal;
      await appendFile(journalPath, '{"type":"tool-call-completed","callId":"c1","at":"2025');
      const journal = await store.readJournal("run-1");
      expect([...journal.startedCallIds]).toEqual(["c1"]);
      expect(journal.completedToolCalls).toEqual({});
      expect(journal.problems).toHaveLength(1);
      // A new process keeps appending after the torn line.
      const next = createCheckpointStore(dataDir);
      await next.markToolCallStarted("run-1", "c2");
      const after = await next.readJournal("run-1");
      expect([...after.startedCallIds]).toEqual(["c1", "c2"]);
    });
  });

  it("refuses a journal written by a newer agentforge", async () => {
    await withTempDir(async (dataDir) => {
      const store = createCheckpointStore(dataDir);
      await store.prepareRun("run-1");
      await writeFile(
        runPaths(dataDir, "run-1").journal,
        '{"schema":"agentforge-journal/2","runId":"run-1"}\n',
      );
      await expect(store.readJournal("run-1")).rejects.toMatchObject({ code: "SCHEMA_TOO_NEW" });
    });
  });
});
