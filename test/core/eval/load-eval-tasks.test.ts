import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadEvalTasks, resolveEvalTasks } from "../../../src/core/eval/load-eval-tasks.js";

let dir: string;

const script = { steps: [{ type: "text", text: "done" }] };
const validTask = {
  id: "one",
  prompt: "do it",
  fixture: "fixture",
  model: { script: "script.json" },
  expect: { exit_reason: "final_answer" },
};

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), "agentforge-eval-load-"));
  mkdirSync(path.join(dir, "fixture"));
  writeFileSync(path.join(dir, "fixture", "a.txt"), "a\n");
  writeFileSync(path.join(dir, "script.json"), JSON.stringify(script));
  writeFileSync(path.join(dir, "broken-script.json"), JSON.stringify({ steps: [{ type: "text" }] }));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function errorFor(json: unknown): Promise<string> {
  const result = await resolveEvalTasks(json, dir);
  if (result.success) throw new Error("expected the tasks to be refused");
  return result.error;
}

describe("loadEvalTasks", () => {
  it("resolves paths relative to the tasks file and fills the defaults", async () => {
    const file = path.join(dir, "tasks.json");
    writeFileSync(file, JSON.stringify({ tasks: [validTask] }));
    const result = await loadEvalTasks(file);
    if (!result.success) throw new Error(result.error);
    const [task] = result.value;
    expect(task).toMatchObject({
      id: "one",
      fixtureDir: path.join(dir, "fixture"),
      mode: "build",
      approval: "never",
      allow: [],
      model: { kind: "script", path: path.join(dir, "script.json"), script },
    });
  });

  it("writes expected paths as git prints them", async () => {
    const result = await resolveEvalTasks(
      {
        tasks: [
          { ...validTask, expect: { files_changed: ["./src/a.js", "lib/"], files_unchanged: ["src//b"] } },
        ],
      },
      dir,
    );
    if (!result.success) throw new Error(result.error);
    expect(result.value[0]?.expect).toEqual({
      files_changed: ["src/a.js", "lib"],
      files_unchanged: ["src/b"],
    });
  });

  it("takes a model name and fallbacks for a script", async () => {
    const result = await resolveEvalTasks(
      { tasks: [{ ...validTask, model: { script: "script.json", name: "a", fallback_models: ["b"] } }] },
      dir,
    );
    expect(result.success && result.value[0]?.model).toMatchObject({
      kind: "script",
      name: "a",
      fallbackModels: ["b"],
    });
  });

  it("accepts a real model", async () => {
    const result = await resolveEvalTasks({ tasks: [{ ...validTask, model: { real: true } }] }, dir);
    expect(result.success && result.value[0]?.model).toEqual({ kind: "real" });
  });

  it("names the field of every schema problem", async () => {
    const error = await errorFor({
      tasks: [
        {
          ...validTask,
          approval: "sometimes",
          expect: {
            error_types_seen: ["FILE_MISSING"],
            exit_reason: "done",
            files_changed: ["../x"],
            colour: 1,
          },
        },
      ],
    });
    expect(error).toContain("tasks[0].approval");
    expect(error).toContain("tasks[0].expect.error_types_seen[0]");
    expect(error).toContain("tasks[0].expect.exit_reason");
    expect(error).toContain("tasks[0].expect.files_changed[0]");
    expect(error).toContain('"colour"');
  });

  it("refuses a missing expect, a bad model, an empty list and duplicate ids", async () => {
    const { expect: _expect, ...noExpect } = validTask;
    expect(await errorFor({ tasks: [noExpect] })).toContain("tasks[0].expect");
    expect(await errorFor({ tasks: [{ ...validTask, model: { real: false } }] })).toContain("tasks[0].model");
    expect(await errorFor({ tasks: [] })).toContain("tasks");
    expect(await errorFor({ tasks: [validTask, validTask] })).toContain("tasks[1].id");
    expect(await errorFor({ tasks: [{ ...validTask, id: "a/b" }] })).toContain("tasks[0].id");
  });

  it("names a fixture or script that cannot be used", async () => {
    expect(await errorFor({ tasks: [{ ...validTask, fixture: "nowhere" }] })).toContain(
      "tasks[0].fixture: nowhere cannot be read (ENOENT)",
    );
    expect(await errorFor({ tasks: [{ ...validTask, fixture: "script.json" }] })).toContain(
      "tasks[0].fixture: script.json is not a directory",
    );
    expect(await errorFor({ tasks: [{ ...validTask, model: { script: "missing.json" } }] })).toContain(
      "tasks[0].model.script: cannot read missing.json",
    );
    expect(await errorFor({ tasks: [{ ...validTask, model: { script: "broken-script.json" } }] })).toMatch(
      /tasks\[0\]\.model\.script: broken-script\.json: invalid mock script: steps\[0\]\.text/,
    );
  });

  it("says when the file is not JSON or cannot be read", async () => {
    const file = path.join(dir, "bad.json");
    writeFileSync(file, "{ tasks: ");
    const bad = await loadEvalTasks(file);
    expect(bad.success ? "" : bad.error).toContain("is not valid JSON");
    const missing = await loadEvalTasks(path.join(dir, "none.json"));
    expect(missing.success ? "" : missing.error).toContain("ENOENT");
  });
});
