import { setMaxListeners } from "node:events";
import { cp, mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { RunResult } from "../agent-run.js";
import type { LoopEvent } from "../loop/loop-events.js";
import { createOpenAIModelClient } from "../model/create-openai-model-client.js";
import type { ModelClient } from "../model/model-types.js";
import { createRuntime } from "../runtime/create-runtime.js";
import { createSandboxRunner } from "../sandbox/create-sandbox-runner.js";
import { startMockModelServer, type MockModelServer } from "../../mock-model/start-mock-model-server.js";
import type { WorkspaceRepository } from "../git/workspace-repository.js";
import { commitFixture, listChangedFiles } from "./eval-git.js";
import { judgeEvalRun, type EvalObservation } from "./judge-eval-run.js";
import type { EvalTask } from "./load-eval-tasks.js";
import { snapshotPath } from "./snapshot-paths.js";
import { summarizeEvalEvents, type EvalEventSummary } from "./summarize-eval-events.js";

export interface EvalTaskOutcome extends EvalEventSummary {
  readonly id: string;
  readonly passed: boolean;
  readonly failures: readonly string[];
  readonly exitReason: RunResult["exitReason"] | null;
  readonly turns: number;
  readonly totalTokens: number;
  /** Null when the run's model had no known price. */
  readonly costUsd: number | null;
  readonly durationMs: number;
  readonly finalAnswer: string | null;
  readonly filesChanged: readonly string[];
  readonly command?: {
    readonly command: string;
    readonly exitCode: number | null;
    readonly timedOut: boolean;
    readonly output: string;
  };
  /**
   * Requests the scripted model answered. More than `turns` means calls outside the loop (a
   * compaction summary) took script steps.
   */
  readonly modelRequests?: number;
  /** Where the run's trace was kept, when a trace folder was given. */
  readonly tracePath?: string;
  readonly errorMessage?: string;
}

export interface RunEvalTaskOptions {
  /** The host environment: real-model tasks read OPENAI_* from it; the sandbox mode comes from it. */
  readonly env: NodeJS.ProcessEnv;
  /** Keep each task's trace here as `<id>.jsonl`; otherwise it goes with the temp folder. */
  readonly traceDir?: string;
  /** Where a task's workspace is made (default: the system temp folder). */
  readonly tempRoot?: string;
}

const COMMAND_CHECK_TIMEOUT_MS = 60_000;
const MOCK_MODEL_NAME = "mock-model";

/**
 * Runs one task in isolation: a fresh copy of its fixture committed to a new git repository, its
 * own data folder and its own scripted model server, then judges what happened.
 */
export async function runEvalTask(task: EvalTask, options: RunEvalTaskOptions): Promise<EvalTaskOutcome> {
  const started = performance.now();
  const root = await mkdtemp(path.join(options.tempRoot ?? tmpdir(), `agentforge-eval-${task.id}-`));
  try {
    const workspace = path.join(root, "workspace");
    await cp(task.fixtureDir, workspace, {
      recursive: true,
      // Copied as written: resolving a relative link would point the copy back into the fixture.
      verbatimSymlinks: true,
      // A fixture's own repository would hide what the agent changed.
      filter: (source) => path.basename(source) !== ".git",
    });
    const workspaceRoot = await realpath(workspace);
    const repository = await commitFixture(workspaceRoot, await realpath(root));
    const unchangedPaths = task.expect.files_unchanged ?? [];
    const before = await Promise.all(unchangedPaths.map((item) => snapshotPath(workspaceRoot, item)));
    const dataDir = path.join(root, "data");
    await mkdir(dataDir);
    const tracePath = options.traceDir
      ? path.join(options.traceDir, `${task.id}.jsonl`)
      : path.join(root, "trace.jsonl");
    const env = taskEnvironment(task, options.env, dataDir);

    const events: LoopEvent[] = [];
    let result: RunResult | undefined;
    let crash: string | undefined;
    const counter = { modelRequests: 0 };
    try {
      result = await runAgent(task, {
        env,
        workspaceRoot,
        readOnlyPaths: repository.sandboxReadOnlyPaths,
        tracePath,
        counter,
        onEvent: (event) => events.push(event),
      });
    } catch (error) {
      crash = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    }
    const summary = summarizeEvalEvents(events);
    // Before `git status`, which may refresh .git/index.
    const after = await Promise.all(unchangedPaths.map((item) => snapshotPath(workspaceRoot, item)));
    const filesChanged = await listChangedFiles(repository);
    const command =
      task.expect.command_passes === undefined
        ? undefined
        : await runCommandCheck(task.expect.command_passes, repository, env);
    const durationMs = Math.round(performance.now() - started);
    const modelRequests = task.model.kind === "script" ? { modelRequests: counter.modelRequests } : {};
    if (result === undefined) {
      return {
        id: task.id,
        passed: false,
        failures: [`the run crashed: ${crash ?? "no result"}`],
        exitReason: null,
        turns: 0,
        totalTokens: 0,
        costUsd: 0,
        durationMs,
        finalAnswer: null,
        filesChanged,
        ...summary,
        ...modelRequests,
        ...(command ? { command } : {}),
        ...(crash ? { errorMessage: crash } : {}),
      };
    }
    const observation: EvalObservation = {
      exitReason: result.exitReason,
      finalAnswer: result.finalAnswer,
      errorTypesSeen: summary.errorTypesSeen,
      eventTypesSeen: Object.keys(summary.eventCounts),
      toolsRefused: summary.toolsRefused,
      commandsRefused: summary.commandsRefused,
      filesChanged,
      unchanged: unchangedPaths.map((item, index) => ({
        path: item,
        before: before[index] ?? null,
        after: after[index] ?? null,
      })),
      ...(command ? { command } : {}),
    };
    const failures = judgeEvalRun(task.expect, observation);
    return {
      id: task.id,
      passed: failures.length === 0,
      failures,
      exitReason: result.exitReason,
      turns: result.turns,
      totalTokens: result.usage.totalTokens,
      costUsd: result.costUsd,
      durationMs,
      finalAnswer: result.finalAnswer,
      filesChanged,
      ...summary,
      ...modelRequests,
      ...(command ? { command } : {}),
      ...(options.traceDir ? { tracePath } : {}),
      ...(result.errorMessage ? { errorMessage: result.errorMessage } : {}),
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

interface RunAgentInput {
  readonly env: NodeJS.ProcessEnv;
  readonly workspaceRoot: string;
  readonly readOnlyPaths: readonly string[];
  readonly tracePath: string;
  readonly onEvent: (event: LoopEvent) => void;
  readonly counter: { modelRequests: number };
}

async function runAgent(task: EvalTask, input: RunAgentInput): Promise<RunResult> {
  let server: MockModelServer | undefined;
  let model: ModelClient | undefined;
  if (task.model.kind === "script") {
    server = await startMockModelServer({ script: task.model.script });
    // The real SDK client over HTTP, so the eval measures the same path a run takes.
    model = createOpenAIModelClient({
      model: task.model.name ?? MOCK_MODEL_NAME,
      ...(task.model.fallbackModels ? { fallbackModels: task.model.fallbackModels } : {}),
      baseURL: server.url,
      apiKey: "eval",
      retry: { baseDelayMs: 10, maxDelayMs: 100 },
    });
  }
  const signal = AbortSignal.timeout(task.timeoutMs);
  // Each model call ties this signal to its own deadline, adding a listener per turn; a long task
  // passes Node's default warning limit of 10 without leaking anything that outlives the task.
  setMaxListeners(0, signal);
  try {
    const runtime = await createRuntime({
      env: input.env,
      ...(model ? { model } : {}),
      ...(task.contextWindow === undefined ? {} : { contextWindow: task.contextWindow }),
      ...(task.maxTurns === undefined ? {} : { maxTurns: task.maxTurns }),
    });
    try {
      return await runtime.runner.run(
        {
          prompt: task.prompt,
          workspaceRoot: input.workspaceRoot,
          readOnlyPaths: input.readOnlyPaths,
          mode: task.mode,
          approvalMode: task.approval,
          allowPrefixes: task.allow,
          ...(task.maxTurns === undefined ? {} : { maxTurns: task.maxTurns }),
          tracePath: input.tracePath,
          signal,
        },
        { onEvent: input.onEvent },
      );
    } finally {
      await runtime.close();
    }
  } finally {
    input.counter.modelRequests =
      server?.requests.filter((request) => request.body !== undefined).length ?? 0;
    await server?.close();
  }
}

/**
 * Scripted tasks see no operator config and no model variables: the suite must mean the same on
 * every machine. Real-model tasks take the operator's environment as `agentforge run` would.
 */
function taskEnvironment(task: EvalTask, host: NodeJS.ProcessEnv, dataDir: string): NodeJS.ProcessEnv {
  if (task.model.kind === "real") {
    return {
      ...host,
      AGENTFORGE_DATA_DIR: dataDir,
      ...(task.model.name ? { AGENTFORGE_MODEL: task.model.name } : {}),
    };
  }
  return {
    ...(host.PATH === undefined ? {} : { PATH: host.PATH }),
    ...(host.HOME === undefined ? {} : { HOME: host.HOME }),
    ...(host.AGENTFORGE_SANDBOX === undefined ? {} : { AGENTFORGE_SANDBOX: host.AGENTFORGE_SANDBOX }),
    AGENTFORGE_DATA_DIR: dataDir,
  };
}

async function runCommandCheck(
  command: string,
  repository: WorkspaceRepository,
  env: NodeJS.ProcessEnv,
): Promise<NonNullable<EvalTaskOutcome["command"]>> {
  const runner = createSandboxRunner({ env });
  try {
    const outcome = await runner.run(command, {
      cwd: repository.workTree,
      workspaceRoot: repository.workTree,
      readOnlyPaths: repository.sandboxReadOnlyPaths,
      timeoutMs: COMMAND_CHECK_TIMEOUT_MS,
    });
    return {
      command,
      exitCode: outcome.exitCode,
      timedOut: outcome.timedOut,
      output: `${outcome.stdout}${outcome.stderr}`.slice(-2000),
    };
  } catch (error) {
    // No sandbox: the check cannot be made, which must fail the task rather than pass it.
    const message = error instanceof Error ? error.message : String(error);
    return { command, exitCode: null, timedOut: false, output: `not run: ${message}` };
  }
}
