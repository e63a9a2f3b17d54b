import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { EvalTask } from "../../../src/core/eval/load-eval-tasks.js";
import { runEvalTask } from "../../../src/core/eval/run-eval-task.js";
import { parseMockScript } from "../../../src/mock-model/mock-script.js";

let dir: string;
let fixtureDir: string;
let tempRoot: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), "agentforge-eval-task-"));
  fixtureDir = path.join(dir, "fixture");
  tempRoot = path.join(dir, "tmp");
  mkdirSync(path.join(fixtureDir, "src"), { recursive: true });
  mkdirSync(tempRoot);
  writeFileSync(path.join(fixtureDir, "package.json"), '{ "type": "module" }\n');
  writeFileSync(path.join(fixtureDir, "src", "half.js"), "export const half = (n) => n * 2;\n");
  writeFileSync(
    path.join(fixtureDir, "test.js"),
    'import { half } from "./src/half.js";\nif (half(8) !== 4) { console.error("half(8) is " + half(8)); process.exit(1); }\n',
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function task(steps: unknown[], expectations: EvalTask["expect"], extra: Partial<EvalTask> = {}): EvalTask {
  const script = parseMockScript({ steps });
  if (!script.success) throw new Error(script.error);
  return {
    id: "half",
    prompt: "fix half()",
    fixtureDir,
    model: { kind: "script", path: "inline", script: script.value },
    mode: "build",
    approval: "never",
    allow: ["node test.js"],
    timeoutMs: 30_000,
    expect: expectations,
    ...extra,
  };
}

const fixingSteps = [
  {
    type: "tool_calls",
    calls: [
      { name: "edit_file", arguments: { path: "src/half.js", old_string: "n * 2", new_string: "n / 2" } },
    ],
  },
  { type: "tool_calls", calls: [{ name: "shell", arguments: { command: "node test.js" } }] },
  { type: "text", text: "half() multiplied; it divides now." },
];

describe("runEvalTask", () => {
  it("runs a scripted task in a committed copy of its fixture and judges what changed", async () => {
    const traceDir = path.join(dir, "traces");
    mkdirSync(traceDir);
    const outcome = await runEvalTask(
      task(fixingSteps, {
        exit_reason: "final_answer",
        files_changed: ["src/half.js"],
        files_unchanged: ["test.js", ".git"],
        command_passes: "node test.js",
        final_answer_contains: ["divides"],
      }),
      { env: process.env, tempRoot, traceDir },
    );
    expect(outcome.failures).toEqual([]);
    expect(outcome).toMatchObject({ passed: true, exitReason: "final_answer", turns: 3, modelRequests: 3 });
    expect(outcome.command).toMatchObject({ command: "node test.js", exitCode: 0 });
    expect(outcome.toolCalls.map((call) => `${call.name}:${call.status}`)).toEqual([
      "edit_file:success",
      "shell:success",
    ]);
    // The fixture itself is never touched, and the task's temp folder is gone.
    expect(readFileSync(path.join(fixtureDir, "src", "half.js"), "utf8")).toContain("n * 2");
    expect(readdirSync(tempRoot)).toEqual([]);
    expect(existsSync(path.join(traceDir, "half.jsonl"))).toBe(true);
    expect(outcome.tracePath).toBe(path.join(traceDir, "half.jsonl"));
  }, 30_000);

  it("fails a task whose run does not meet its expectations, saying why", async () => {
    const outcome = await runEvalTask(
      task(fixingSteps.slice(0, 1).concat(fixingSteps.slice(2)), {
        files_changed: ["test.js"],
        command_passes: "node test.js",
        error_types_seen: ["COMMAND_FAILED"],
      }),
      { env: process.env, tempRoot },
    );
    expect(outcome.passed).toBe(false);
    expect(outcome.failures).toEqual([
      "error type COMMAND_FAILED not seen",
      "files not changed: test.js",
      "unexpected files changed: src/half.js",
    ]);
  }, 30_000);

  it("counts a script that runs out as a failed run, not a crash of the suite", async () => {
    const outcome = await runEvalTask(
      task([fixingSteps[0]], { exit_reason: "final_answer", command_passes: "node test.js" }),
      { env: process.env, tempRoot },
    );
    expect(outcome.exitReason).toBe("model_error");
    expect(outcome.errorMessage).toContain("mock script exhausted");
    expect(outcome.failures[0]).toBe("exit_reason was model_error, expected final_answer");
    // The edit was made before the script ran out, so the check itself passes.
    expect(outcome.command?.exitCode).toBe(0);
    expect(readdirSync(tempRoot)).toEqual([]);
  }, 30_000);
});
