import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const BIN = path.resolve("bin/agentforge.js");
const SUITE = path.resolve("evals/tasks.json");

function runCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    // Only what a clean machine has: no model key, no operator config.
    const env = { PATH: process.env.PATH, HOME: process.env.HOME };
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), "agentforge-eval-suite-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the shipped eval suite, through the real CLI", () => {
  it("passes every task and closes with the totals line", async () => {
    const result = await runCli(["eval", SUITE, "--json"]);
    const report = JSON.parse(result.stdout);
    const failed = report.tasks.filter((task: { passed: boolean }) => !task.passed);
    expect(failed).toEqual([]);
    expect(result.code).toBe(0);
    const tasks = JSON.parse(readFileSync(SUITE, "utf8")).tasks as { id: string }[];
    expect(tasks.length).toBeGreaterThanOrEqual(12);
    expect(report.passed).toBe(tasks.length);
    const lines = result.stderr.trim().split("\n");
    expect(lines.at(-1)).toBe(`${tasks.length} passed, 0 failed`);
    for (const task of tasks)
      expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^PASS ${task.id} \\(`)));

    // The suite covers what it claims: every main error type, refusals, pruning, loops, turn limits.
    const seen = new Set(report.tasks.flatMap((task: { errorTypesSeen: string[] }) => task.errorTypesSeen));
    for (const type of [
      "FILE_NOT_FOUND",
      "INVALID_ARGUMENTS",
      "TOOL_NOT_FOUND",
      "EDIT_NO_MATCH",
      "EDIT_AMBIGUOUS",
      "PATCH_FAILED",
      "COMMAND_BLOCKED",
      "COMMAND_FAILED",
      "OUTSIDE_WORKSPACE",
      "PERMISSION_DENIED",
    ])
      expect(seen).toContain(type);
    const exits = new Set(report.tasks.map((task: { exitReason: string }) => task.exitReason));
    for (const reason of ["final_answer", "loop_detected", "max_turns"]) expect(exits).toContain(reason);
    const long = report.tasks.find((task: { id: string }) => task.id === "long-task-compaction");
    expect(long.turns).toBeGreaterThanOrEqual(30);
    expect(long.eventCounts["context-pruned"]).toBeGreaterThan(0);
    const fixes = report.tasks.filter(
      (task: { command?: { command: string; exitCode: number } }) =>
        task.command?.command === "node test.js" && task.command.exitCode === 0,
    );
    expect(fixes.length).toBeGreaterThanOrEqual(3);
  }, 120_000);

  it("fails a task whose expectation is wrong: exit 1, a FAIL line and `0 passed, 1 failed`", async () => {
    const suiteDir = path.join(dir, "failing");
    cpSync(path.resolve("evals"), suiteDir, { recursive: true });
    const shipped = JSON.parse(readFileSync(path.join(suiteDir, "tasks.json"), "utf8"));
    const task = shipped.tasks.find((entry: { id: string }) => entry.id === "fix-calc");
    task.expect.files_changed = ["test.js"];
    writeFileSync(path.join(suiteDir, "tasks.json"), JSON.stringify({ tasks: [task] }));
    const reportPath = path.join(dir, "report.json");
    const result = await runCli(["eval", path.join(suiteDir, "tasks.json"), "--report", reportPath]);
    expect(result.code).toBe(1);
    const lines = result.stdout.trim().split("\n");
    expect(lines[0]).toBe("FAIL fix-calc: files not changed: test.js; unexpected files changed: src/math.js");
    expect(lines.at(-1)).toBe("0 passed, 1 failed");
    const report = JSON.parse(readFileSync(reportPath, "utf8"));
    expect(report).toMatchObject({ passed: 0, failed: 1, tasks: [{ id: "fix-calc", passed: false }] });
    expect(readdirSync(path.join(dir, "report.traces"))).toEqual(["fix-calc.jsonl"]);
  }, 60_000);

  it("refuses a bad tasks file with exit 64 and names the field", async () => {
    const file = path.join(dir, "bad.json");
    writeFileSync(
      file,
      JSON.stringify({
        tasks: [
          { id: "x", prompt: "p", fixture: ".", model: { real: true }, expect: { exit_reason: "done" } },
        ],
      }),
    );
    const result = await runCli(["eval", file]);
    expect(result.code).toBe(64);
    expect(result.stderr).toContain("tasks[0].expect.exit_reason");
    expect(result.stdout).toBe("");
  }, 30_000);
});
