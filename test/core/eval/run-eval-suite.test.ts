import { describe, expect, it } from "@jest/globals";
import type { EvalTask } from "../../../src/core/eval/load-eval-tasks.js";
import type { EvalTaskOutcome } from "../../../src/core/eval/run-eval-task.js";
import { formatEvalLine, formatEvalTotals, runEvalSuite } from "../../../src/core/eval/run-eval-suite.js";

function fakeTask(id: string): EvalTask {
  return {
    id,
    prompt: "p",
    fixtureDir: "/nowhere",
    model: { kind: "real" },
    mode: "build",
    approval: "never",
    allow: [],
    timeoutMs: 1000,
    expect: {},
  };
}

function outcome(id: string, passed: boolean): EvalTaskOutcome {
  return {
    id,
    passed,
    failures: passed ? [] : ["exit_reason was max_turns, expected final_answer"],
    exitReason: passed ? "final_answer" : "max_turns",
    turns: 3,
    totalTokens: 1200,
    costUsd: 0,
    durationMs: 5,
    finalAnswer: null,
    filesChanged: [],
    eventCounts: {},
    errorTypesSeen: [],
    toolsRefused: [],
    commandsRefused: [],
    toolCalls: [],
    contextTokens: [],
  };
}

describe("runEvalSuite", () => {
  it("never runs more tasks at once than asked and reports them in file order", async () => {
    let running = 0;
    let peak = 0;
    const finished: string[] = [];
    const tasks = ["a", "b", "c", "d", "e"].map(fakeTask);
    const report = await runEvalSuite(tasks, {
      tasksFile: "tasks.json",
      env: {},
      concurrency: 2,
      onTaskDone: (done) => finished.push(done.id),
      runTask: async (task) => {
        running += 1;
        peak = Math.max(peak, running);
        // Earlier tasks take longer, so they finish out of order.
        await new Promise((resolve) => setTimeout(resolve, task.id === "a" ? 60 : 10));
        running -= 1;
        return outcome(task.id, task.id !== "c");
      },
    });
    expect(peak).toBe(2);
    expect(finished[0]).not.toBe("a");
    expect(report.tasks.map((task) => task.id)).toEqual(["a", "b", "c", "d", "e"]);
    expect(report).toMatchObject({
      passed: 4,
      failed: 1,
      concurrency: 2,
      schema: "agentforge-eval-report/1",
    });
    expect(formatEvalTotals(report)).toBe("4 passed, 1 failed");
  });

  it("turns a task that throws into a failed task and keeps going", async () => {
    const report = await runEvalSuite([fakeTask("boom"), fakeTask("fine")], {
      tasksFile: "tasks.json",
      env: {},
      runTask: async (task) => {
        if (task.id === "boom") throw new Error("disk full");
        return outcome(task.id, true);
      },
    });
    expect(report.tasks[0]).toMatchObject({ id: "boom", passed: false });
    expect(report.tasks[0]?.failures[0]).toContain("disk full");
    expect(report.passed).toBe(1);
  });

  it("formats one line per task", () => {
    expect(formatEvalLine(outcome("ok", true))).toBe("PASS ok (final_answer, 3 turns, 1200 tokens)");
    expect(formatEvalLine(outcome("bad", false))).toBe(
      "FAIL bad: exit_reason was max_turns, expected final_answer",
    );
  });
});
