import { describe, expect, it } from "@jest/globals";
import { appendFile, readFile } from "node:fs/promises";
import { join } from "node:path";
import { createCheckpointStore } from "../../../src/core/persistence/create-checkpoint-store.js";
import { planResume } from "../../../src/core/persistence/plan-resume.js";
import { runAndKill } from "./crash-child.js";
import { sourceUrl, withTempDir } from "./persistence-test-helpers.js";

/**
 * A real process runs three tool calls the way the loop does (checkpoint after the model answers,
 * "started" before each tool, "completed" after) and is killed with SIGKILL while the second tool
 * is running. The resumed plan must reuse the first, report the second and run only the third.
 */
describe("resume after SIGKILL", () => {
  it("no tool call runs twice and none is silently re-run", async () => {
    await withTempDir(async (dir) => {
      const dataDir = join(dir, "data");
      const effects = join(dir, "effects.log");
      const script = `
import { appendFileSync } from "node:fs";
import { createCheckpointStore } from ${JSON.stringify(sourceUrl("src/core/persistence/create-checkpoint-store.ts"))};
const store = createCheckpointStore(${JSON.stringify(dataDir)});
const calls = ["c1", "c2", "c3"].map((id) => ({ id, type: "function", function: { name: "shell", arguments: JSON.stringify({ id }) } }));
await store.save("run-1", {
  runId: "run-1",
  task: { prompt: "go", workspaceRoot: "/w", mode: "build", approvalMode: "never", allowPrefixes: [] },
  turn: 1,
  history: [{ role: "user", content: "go" }, { role: "assistant", content: null, tool_calls: calls }],
  pinnedFacts: null,
  usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15, costUsd: 0 },
  completedToolCalls: {},
  tracePath: null,
  status: "running",
  updatedAt: new Date().toISOString(),
});
for (const call of calls) {
  await store.markToolCallStarted("run-1", call.id, "shell");
  appendFileSync(${JSON.stringify(effects)}, call.id + "\\n");
  if (call.id === "c2") {
    process.stdout.write("ready\\n");
    await new Promise(() => setInterval(() => {}, 1000));
  }
  await store.markToolCallCompleted("run-1", call.id, { name: "shell", result: { ok: true, id: call.id }, content: "done " + call.id });
}
`;
      const { signal } = await runAndKill(dir, script, 50);
      expect(signal).toBe("SIGKILL");

      const store = createCheckpointStore(dataDir);
      const state = await store.loadForResume("run-1");
      const plan = planResume(state.checkpoint, { startedCallIds: state.startedCallIds });
      expect(plan.reusedResults.map((reused) => reused.callId)).toEqual(["c1"]);
      expect(plan.interruptedCalls.map((interrupted) => interrupted.callId)).toEqual(["c2"]);
      expect(plan.pendingCalls.map((pending) => pending.id)).toEqual(["c3"]);
      expect(plan.history.slice(2).map((message) => message.content)).toEqual([
        "done c1",
        expect.stringContaining("interrupted by a crash"),
      ]);

      // The resumed loop runs only what the plan hands it.
      for (const call of plan.pendingCalls) {
        await store.markToolCallStarted("run-1", call.id, call.function.name);
        await appendFile(effects, `${call.id}\n`);
        await store.markToolCallCompleted("run-1", call.id, { name: "shell", result: { ok: true } });
      }
      expect((await readFile(effects, "utf8")).trim().split("\n")).toEqual(["c1", "c2", "c3"]);

      // A second crash-and-resume at this point runs nothing at all.
      const again = await store.loadForResume("run-1");
      const second = planResume(again.checkpoint, { startedCallIds: again.startedCallIds });
      expect(second.pendingCalls).toEqual([]);
      expect(second.reusedResults.map((reused) => reused.callId)).toEqual(["c1", "c3"]);
      expect(second.interruptedCalls.map((interrupted) => interrupted.callId)).toEqual(["c2"]);
    });
  });
});
