import { runLimits } from "../../../src/core/config/run-limits.js";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { createAgentRunner } from "../../../src/core/create-agent-runner.js";
import { createPinnedFacts } from "../../../src/core/context/create-pinned-facts.js";
import { createCheckpointStore } from "../../../src/core/persistence/create-checkpoint-store.js";
import { createScriptedModel } from "../../support/scripted-model.js";

let root: string;
let workspace: string;
let dataDir: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), "agentforge-journal-markers-"));
  workspace = path.join(root, "workspace");
  dataDir = path.join(root, "data");
  await mkdir(workspace);
  await writeFile(path.join(workspace, "a.txt"), "alpha\n");
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const settings = { limits: runLimits({ maxTurns: 10 }), contextWindow: 128_000, configDigest: "test" };

async function journalLines(runId: string): Promise<{ type?: string; callId?: string }[]> {
  const text = await readFile(path.join(dataDir, "runs", runId, "journal.jsonl"), "utf8");
  return text
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { type?: string; callId?: string });
}

describe("tool-call journal markers", () => {
  it("marks calls that may have effects as started, read-only ones only as completed", async () => {
    const model = createScriptedModel([
      {
        calls: [
          { id: "call_read", name: "read_file", args: { path: "a.txt" } },
          { id: "call_write", name: "write_file", args: { path: "b.txt", content: "beta\n" } },
        ],
      },
      { text: "done" },
    ]);
    const runner = createAgentRunner({ model, dataDir, settings });
    const result = await runner.run({
      prompt: "copy",
      workspaceRoot: workspace,
      mode: "build",
      approvalMode: "never",
      allowPrefixes: [],
      maxTurns: 10,
    });
    expect(result.exitReason).toBe("final_answer");
    const entries = (await journalLines(result.runId)).filter((entry) => entry.type !== undefined);
    expect(entries.map((entry) => `${entry.type} ${entry.callId}`)).toEqual([
      "tool-call-completed call_read",
      "tool-call-started call_write",
      "tool-call-completed call_write",
    ]);
  });

  it("runs again a read-only call that a crash cut short (no marker), instead of reporting it interrupted", async () => {
    const runId = "run-read-cut-short";
    const store = createCheckpointStore(dataDir);
    await store.save(runId, {
      runId,
      task: {
        prompt: "read",
        workspaceRoot: workspace,
        mode: "build",
        approvalMode: "never",
        allowPrefixes: [],
        maxTurns: 10,
      },
      turn: 1,
      history: [
        { role: "user", content: "read a.txt" },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            {
              id: "call_read",
              type: "function",
              function: { name: "read_file", arguments: '{"path":"a.txt"}' },
            },
          ],
        },
      ],
      pinnedFacts: createPinnedFacts("read").toJSON(),
      usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0, costUsd: 0 },
      completedToolCalls: {},
      tracePath: path.join(root, "trace.jsonl"),
      status: "running",
      updatedAt: new Date().toISOString(),
    });
    // The journal exists (the crashed process had opened it) and holds no marker for the call.
    await store.markToolCallStarted(runId, "call_earlier", "shell");
    await store.closeRun(runId);

    const model = createScriptedModel([{ text: "a.txt says alpha" }]);
    const result = await createAgentRunner({ model, dataDir, settings }).resume(runId);
    expect(result.exitReason).toBe("final_answer");
    const toolMessage = model.requests[0]?.messages.find((message) => message.role === "tool");
    expect(toolMessage?.content).toContain("alpha");
    expect(toolMessage?.content).not.toContain("INTERRUPTED");
  });
});
