import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { parseMockScript, type MockScript } from "../../mock-model/mock-script.js";
import { evalTasksFileSchema, type EvalExpectations, type EvalTaskSpec } from "./eval-task-schema.js";
import { formatIssuePath } from "./format-issue-path.js";

export type EvalTaskModel =
  | {
      readonly kind: "script";
      readonly path: string;
      readonly script: MockScript;
      readonly name?: string;
      readonly fallbackModels?: readonly string[];
    }
  | { readonly kind: "real"; readonly name?: string };

/** One task with every path resolved and every referenced file read and checked. */
export interface EvalTask {
  readonly id: string;
  readonly prompt: string;
  readonly fixtureDir: string;
  readonly model: EvalTaskModel;
  readonly mode: "build" | "plan";
  readonly approval: NonNullable<EvalTaskSpec["approval"]>;
  readonly allow: readonly string[];
  readonly maxTurns?: number;
  readonly contextWindow?: number;
  readonly timeoutMs: number;
  readonly expect: EvalExpectations;
}

export type LoadEvalTasksResult =
  | { readonly success: true; readonly value: readonly EvalTask[] }
  | { readonly success: false; readonly error: string };

const DEFAULT_TASK_TIMEOUT_MS = 120_000;

/** Reads a tasks file; fixtures and scripts are resolved relative to it. Errors name the field. */
export async function loadEvalTasks(tasksPath: string): Promise<LoadEvalTasksResult> {
  let text: string;
  try {
    text = await readFile(tasksPath, "utf8");
  } catch (error) {
    return { success: false, error: `cannot read the tasks file ${tasksPath} (${errorCode(error)})` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return {
      success: false,
      error: `the tasks file ${tasksPath} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  return resolveEvalTasks(json, path.dirname(path.resolve(tasksPath)));
}

/** Validates parsed JSON and resolves its paths against `baseDir`. */
export async function resolveEvalTasks(json: unknown, baseDir: string): Promise<LoadEvalTasksResult> {
  const parsed = evalTasksFileSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${formatIssuePath(issue.path)}: ${issue.message}`);
    return { success: false, error: `invalid tasks file: ${problems.join("; ")}` };
  }
  const tasks: EvalTask[] = [];
  const problems: string[] = [];
  for (const [index, spec] of parsed.data.tasks.entries()) {
    const field = `tasks[${index}]`;
    const fixtureDir = path.resolve(baseDir, spec.fixture);
    const fixtureProblem = await checkDirectory(fixtureDir);
    if (fixtureProblem) problems.push(`${field}.fixture: ${spec.fixture} ${fixtureProblem}`);
    const model = await resolveModel(spec, baseDir);
    if (!model.success) problems.push(`${field}.model.script: ${model.error}`);
    if (fixtureProblem || !model.success) continue;
    tasks.push({
      id: spec.id,
      prompt: spec.prompt,
      fixtureDir,
      model: model.value,
      mode: spec.mode ?? "build",
      approval: spec.approval ?? "never",
      allow: spec.allow ?? [],
      ...(spec.max_turns === undefined ? {} : { maxTurns: spec.max_turns }),
      ...(spec.context_window === undefined ? {} : { contextWindow: spec.context_window }),
      timeoutMs: spec.timeout_ms ?? DEFAULT_TASK_TIMEOUT_MS,
      expect: spec.expect,
    });
  }
  if (problems.length > 0) return { success: false, error: `invalid tasks file: ${problems.join("; ")}` };
  return { success: true, value: tasks };
}

async function resolveModel(
  spec: EvalTaskSpec,
  baseDir: string,
): Promise<{ success: true; value: EvalTaskModel } | { success: false; error: string }> {
  if (!("script" in spec.model)) {
    return { success: true, value: { kind: "real", ...(spec.model.name ? { name: spec.model.name } : {}) } };
  }
  const scriptPath = path.resolve(baseDir, spec.model.script);
  let text: string;
  try {
    text = await readFile(scriptPath, "utf8");
  } catch (error) {
    return { success: false, error: `cannot read ${spec.model.script} (${errorCode(error)})` };
  }
  const script = parseMockScript(text);
  if (!script.success) return { success: false, error: `${spec.model.script}: ${script.error}` };
  return {
    success: true,
    value: {
      kind: "script",
      path: scriptPath,
      script: script.value,
      ...(spec.model.name ? { name: spec.model.name } : {}),
      ...(spec.model.fallback_models ? { fallbackModels: spec.model.fallback_models } : {}),
    },
  };
}

async function checkDirectory(directory: string): Promise<string | null> {
  try {
    const stats = await stat(directory);
    return stats.isDirectory() ? null : "is not a directory";
  } catch (error) {
    return `cannot be read (${errorCode(error)})`;
  }
}

/** Duck-typed: errors from node:fs may come from another realm (test runners), failing instanceof. */
function errorCode(error: unknown): string {
  return typeof error === "object" && error !== null && "code" in error ? String(error.code) : "unknown";
}
