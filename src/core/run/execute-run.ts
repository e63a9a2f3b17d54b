import type { RunResult, RunInput } from "../agent-run.js";
import { createContextManager, createModelCompactor, createTokenCounter } from "../context/index.js";
import type { AgentRunnerDependencies } from "./agent-runner-dependencies.js";
import type { LoopEventListener } from "../loop/loop-events.js";
import type { UsageTotals } from "../loop/loop-budgets.js";
import { runLoop } from "../loop/run-loop.js";
import type { CheckpointStore } from "../persistence/create-checkpoint-store.js";
import type { RunCheckpoint } from "../persistence/run-checkpoint.js";
import { createFence } from "../safety/create-fence.js";
import type { Redactor } from "../safety/create-redactor.js";
import { createContentSafety } from "../session/create-content-safety.js";
import { scopeCommandRunner } from "../tools/scope-command-runner.js";
import { eventAttributes } from "../trace/event-attributes.js";
import { readTracedCallEnds } from "../trace/read-traced-call-ends.js";
import { buildRunSession, ledgerLimitsFor, loadSkills } from "./build-run-session.js";
import { createRunRecorder } from "./create-run-recorder.js";
import { openRunTrace } from "./open-run-trace.js";
import { restoreFacts, toCheckpointTask } from "./run-checkpoint-state.js";
import { selectRunModel } from "./select-run-model.js";
import { startRunHistory } from "./start-run-history.js";
import { tallyActions } from "./tally-actions.js";
import { sumUsage, toRunResult } from "./to-run-result.js";

export interface ExecuteRunOptions {
  readonly onEvent?: LoopEventListener;
  /** See RunOptions.workspaceReady: awaited before the first tool call runs. */
  readonly workspaceReady?: Promise<void>;
  readonly resume?: { readonly checkpoint: RunCheckpoint; readonly startedCallIds?: ReadonlySet<string> };
}

/**
 * One run, fresh or resumed: its session (tools, gate, prompt), working memory, trace and
 * checkpoints around the loop. Everything it writes lives under the run's own folder of the store.
 */
export async function executeRun(
  task: RunInput,
  runId: string,
  core: {
    readonly dependencies: AgentRunnerDependencies;
    readonly store: CheckpointStore;
    readonly redactor: Redactor;
  },
  options: ExecuteRunOptions = {},
): Promise<RunResult> {
  const { store, redactor } = core;
  // Everything of this run (loop, subagents, compaction, token counts, trace) uses the task's model.
  const model = selectRunModel(task, core.dependencies);
  const dependencies: AgentRunnerDependencies = { ...core.dependencies, model };
  const { settings } = dependencies;
  const resumed = options.resume?.checkpoint;
  const paths = await store.prepareRun(runId);
  const tracePath = task.tracePath ?? resumed?.tracePath ?? paths.trace;
  // Read before this process appends: what the crashed one had already told of its last turn.
  const tracedCallEnds = resumed ? await readTracedCallEnds(tracePath, resumed.turn) : new Set<string>();
  const fence = createFence();
  const safety = createContentSafety({ redactor, fence, scratchDir: paths.scratch });
  const trace = openRunTrace({
    runId,
    task,
    path: tracePath,
    isResume: resumed !== undefined,
    model: dependencies.model.model,
    configDigest: settings.configDigest,
    redactor,
  });
  let extraUsage: UsageTotals | null = null;
  let currentTurn = resumed?.turn ?? 0;
  const actions = tallyActions((name) => session.registry.get(name)?.kind);
  const onEvent: LoopEventListener = (event) => {
    if (event.type === "turn-start") currentTurn = event.turn;
    actions.observe(event);
    trace.onEvent(event);
    options.onEvent?.(event);
  };
  const session = buildRunSession(task, dependencies, {
    safety,
    fencingInstructions: fence.fencingInstructions(),
    skills: await loadSkills(task.workspaceRoot, dependencies.skillRoots ?? []),
    onEvent,
    onSubagentEvent: (name, event, invocationId) => {
      const attributes = eventAttributes(event);
      if (attributes)
        trace.record(event.type, event.turn, {
          ...attributes,
          "subagent.name": name,
          "subagent.invocation_id": invocationId,
        });
    },
    addUsage: (usage) => {
      extraUsage = extraUsage ? sumUsage(extraUsage, usage) : usage;
    },
    currentTurn: () => currentTurn,
  });
  const facts = restoreFacts(task, resumed);
  const counter = createTokenCounter(dependencies.model.model);
  const context = createContextManager({
    windowTokens: settings.contextWindow,
    ...(settings.maxOutputTokens === undefined
      ? {}
      : {
          reserveOutputTokens: Math.min(settings.maxOutputTokens, Math.ceil(settings.contextWindow / 2) - 1),
        }),
    counter,
    compactor: createModelCompactor(dependencies.model, { counter }),
    scratchDir: paths.scratch,
    scratchReadable: true,
    ...ledgerLimitsFor(settings.contextWindow),
  });
  const start = startRunHistory({
    task,
    fence,
    safety,
    ...(options.resume ? { resume: options.resume } : {}),
    tracedCallEnds,
    trace,
    facts,
    context,
    onEvent,
  });
  const recorder = await createRunRecorder({
    store,
    runId,
    task: toCheckpointTask(task),
    tracePath,
    facts,
    registry: session.registry,
    completed: resumed?.completedToolCalls ?? {},
  });
  const result = await runLoop({
    model: dependencies.model,
    registry: session.registry,
    toolContext: {
      workspaceRoot: task.workspaceRoot,
      scratchDir: paths.scratch,
      signal: task.signal ?? new AbortController().signal,
      runId,
      ...(dependencies.commandRunner
        ? {
            commandRunner: scopeCommandRunner(dependencies.commandRunner, {
              ...(task.readOnlyPaths === undefined ? {} : { readOnlyPaths: task.readOnlyPaths }),
              readOnlyWorkspace: session.isReadOnly,
            }),
          }
        : {}),
    },
    systemPrompt: session.systemPrompt,
    history: start.history,
    budgets: session.budgets,
    facts,
    context,
    onEvent,
    externalUsage: () => extraUsage,
    ...(task.signal ? { signal: task.signal } : {}),
    ...(settings.stream === undefined ? {} : { stream: settings.stream }),
    ...(start.resumed ? { resume: start.resumed } : {}),
    // One checkpoint a turn, after the model's response and before its calls run. A turn's
    // results reach the journal as each call finishes, so a crash while the next response is
    // awaited resumes from that checkpoint and the journal without running anything again.
    // The workspace must be ready before the calls of the first response run.
    onModelResponse: async (state) => {
      await options.workspaceReady;
      recorder.checkpoint(state, "running");
    },
    toolHooks: recorder.toolHooks,
  });
  const usage: UsageTotals = extraUsage ? sumUsage(result.usage, extraUsage) : result.usage;
  recorder.checkpoint(
    { turn: result.turns, history: result.history, usage },
    result.exitReason === "cancelled" ? "stopped" : "finished",
    result.exitReason,
  );
  await recorder.close();
  await trace.close({
    exit_reason: result.exitReason,
    turns: result.turns,
    usage: {
      prompt_tokens: usage.promptTokens,
      completion_tokens: usage.completionTokens,
      total_tokens: usage.totalTokens,
    },
    cost_usd: usage.costUsd,
    actions: actions.value(),
    ...(result.errorMessage ? { error: result.errorMessage } : {}),
  });
  return {
    ...toRunResult(runId, result, usage, facts, trace.path, redactor, actions.value()),
    model: model.model,
  };
}
