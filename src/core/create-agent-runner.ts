import type { AgentRunResult, AgentRunner, AgentTask } from "./agent-run.js";
import { createContextManager, createModelCompactor, createTokenCounter } from "./context/index.js";
import type { LoopEventListener } from "./loop/loop-events.js";
import { runLoop, type LoopCheckpointState } from "./loop/run-loop.js";
import type { UsageTotals } from "./loop/loop-budgets.js";
import type { ChatMessage, ModelClient } from "./model/model-types.js";
import { createCheckpointStore, type CheckpointStore } from "./persistence/create-checkpoint-store.js";
import { planResume } from "./persistence/plan-resume.js";
import type { CompletedToolCall, RunCheckpoint } from "./persistence/run-checkpoint.js";
import { createRunId } from "./persistence/validate-id.js";
import { createFence } from "./safety/create-fence.js";
import { createRedactor, type Redactor } from "./safety/create-redactor.js";
import { createContentSafety } from "./session/create-content-safety.js";
import { type AfterToolHookConfig } from "./session/create-after-tool-hooks.js";
import { buildTaskMessage } from "./session/build-task-message.js";
import { createTraceWriter } from "./trace/create-trace-writer.js";
import { eventAttributes } from "./trace/event-attributes.js";
import type { SubagentConfig } from "./config/operator-config-schema.js";
import type { ApprovalRequest } from "./tools/approval-gate.js";
import type { PendingApproval } from "./policy/create-policy-approval-gate.js";
import type { Tool, CommandRunner } from "./tools/tool.js";
import { renderToolMessage } from "./tools/render-tool-result.js";
import { scopeCommandRunner } from "./tools/scope-command-runner.js";
import { buildRunSession, ledgerLimitsFor, loadSkills } from "./run/build-run-session.js";
import { replaySettledCalls } from "./run/replay-settled-calls.js";
import { readTracedCallEnds } from "./trace/read-traced-call-ends.js";
import {
  fromCheckpointTask,
  restoreFacts,
  toCheckpointTask,
  unansweredCompletedCalls,
} from "./run/run-checkpoint-state.js";

export interface AgentRunnerSettings {
  readonly maxTurns: number;
  readonly maxTotalTokens?: number;
  readonly maxCostUsd?: number;
  readonly maxWallClockMs?: number;
  readonly contextWindow: number;
  readonly toolTimeoutMs?: number;
  readonly commandTimeoutMs?: number;
  readonly maxOutputChars?: number;
  readonly stream?: boolean;
  readonly configDigest: string;
}

/** Everything outside the core that a run needs, passed in by the door. */
export interface AgentRunnerDependencies {
  readonly model: ModelClient;
  readonly dataDir: string;
  readonly settings: AgentRunnerSettings;
  /** Runs shell commands (the sandbox). Without it the shell tool is not offered. */
  readonly commandRunner?: CommandRunner;
  /** Tools of the operator's MCP servers, started once by the runtime. */
  readonly mcpTools?: readonly Tool[];
  /** Offers the read-only subagents (defaults plus the operator's). */
  readonly subagents?: { readonly operatorSubagents: readonly SubagentConfig[] };
  /** Operator hooks run in the sandbox after named tools succeed. */
  readonly afterToolHooks?: readonly AfterToolHookConfig[];
  /** Operator skill roots; the repository's `.agentforge/skills/` is added per task. */
  readonly skillRoots?: readonly string[];
  /** Exact values the process holds (model key, tokens, webhook secret). */
  readonly secrets?: readonly string[];
  /** Asks a person; only interactive doors pass it. Without it, needs-confirmation means refused. */
  readonly confirm?: (request: ApprovalRequest, pending: PendingApproval) => Promise<boolean>;
}

export interface ResumableAgentRunner {
  readonly run: AgentRunner;
  resume(
    runId: string,
    options?: { readonly onEvent?: LoopEventListener; readonly signal?: AbortSignal },
  ): Promise<AgentRunResult>;
  readonly redactor: Redactor;
  readonly store: CheckpointStore;
}

/**
 * Composes one run: session (tools, gate, prompt), working memory, trace, checkpoints and the
 * loop. Doors call `run` with a task; `resume` continues a run from its checkpoint.
 */
export function createAgentRunner(dependencies: AgentRunnerDependencies): ResumableAgentRunner {
  const redactor = createRedactor({ secrets: dependencies.secrets ?? [] });
  const store = createCheckpointStore(dependencies.dataDir);
  const { settings } = dependencies;

  async function execute(
    task: AgentTask,
    runId: string,
    options: { onEvent?: LoopEventListener; resume?: RunCheckpoint; startedCallIds?: ReadonlySet<string> },
  ): Promise<AgentRunResult> {
    const paths = await store.prepareRun(runId);
    const tracePath = task.tracePath ?? options.resume?.tracePath ?? paths.trace;
    // Read before this process appends: what the crashed one had already told of its last turn.
    const tracedCallEnds = options.resume
      ? await readTracedCallEnds(tracePath, options.resume.turn)
      : new Set<string>();
    const fence = createFence();
    const safety = createContentSafety({ redactor, fence, scratchDir: paths.scratch });
    let extraUsage: UsageTotals | null = null;
    const trace = createTraceWriter({
      path: tracePath,
      append: options.resume !== undefined,
      redact: (text) => redactor.redact(text),
      header: {
        run_id: runId,
        task: task.mode === "plan" ? "plan" : "run",
        user_goal: task.prompt,
        start_time: new Date().toISOString(),
        model: dependencies.model.model,
        config_digest: settings.configDigest,
        workspace: task.workspaceRoot,
        mode: task.mode,
        approval_mode: task.approvalMode,
      },
    });
    let currentTurn = options.resume?.turn ?? 0;
    const onEvent: LoopEventListener = (event) => {
      if (event.type === "turn-start") currentTurn = event.turn;
      trace.onEvent(event);
      options.onEvent?.(event);
    };
    const skills = await loadSkills(task.workspaceRoot, dependencies.skillRoots ?? []);
    const session = buildRunSession(task, dependencies, {
      safety,
      fencingInstructions: fence.fencingInstructions(),
      skills,
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
    const facts = restoreFacts(task, options.resume);
    const counter = createTokenCounter(dependencies.model.model);
    const context = createContextManager({
      windowTokens: settings.contextWindow,
      counter,
      compactor: createModelCompactor(dependencies.model, { counter }),
      scratchDir: paths.scratch,
      scratchReadable: true,
      ...ledgerLimitsFor(settings.contextWindow),
    });
    const plan = options.resume
      ? planResume(options.resume, {
          ...(options.startedCallIds ? { startedCallIds: options.startedCallIds } : {}),
          renderResult: (name, result) =>
            renderToolMessage(name, result, (content, source) => safety.fence(content, source)),
        })
      : null;
    if (plan) {
      trace.record("run-resumed", options.resume?.turn ?? 0, {
        "resume.reused_results": plan.reusedResults.length,
        "resume.interrupted_calls": plan.interruptedCalls.length,
        "resume.pending_calls": plan.pendingCalls.length,
      });
      replaySettledCalls(plan, options.resume?.turn ?? 0, { facts, context, onEvent }, tracedCallEnds);
    }
    const history: ChatMessage[] = plan
      ? [...plan.history]
      : [{ role: "user", content: buildTaskMessage(task, fence) }];
    const completed: Record<string, CompletedToolCall> = {
      ...(options.resume?.completedToolCalls ?? {}),
    };
    const checkpointTask = toCheckpointTask(task);
    const checkpoints = await store.openCheckpointLog(runId);
    const checkpoint = (
      state: LoopCheckpointState,
      status: RunCheckpoint["status"],
      exitReason?: RunCheckpoint["exitReason"],
    ): void => {
      checkpoints.record({
        runId,
        task: checkpointTask,
        turn: state.turn,
        history: state.history,
        pinnedFacts: facts.toJSON(),
        usage: state.usage,
        completedToolCalls: unansweredCompletedCalls(completed, state.history),
        tracePath,
        status,
        ...(exitReason ? { exitReason } : {}),
        updatedAt: new Date().toISOString(),
      });
    };

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
      history,
      budgets: session.budgets,
      facts,
      context,
      onEvent,
      externalUsage: () => extraUsage,
      ...(task.signal ? { signal: task.signal } : {}),
      ...(settings.stream === undefined ? {} : { stream: settings.stream }),
      ...(plan && options.resume
        ? {
            pendingCalls: plan.pendingCalls,
            startTurn: options.resume.turn,
            startUsage: options.resume.usage,
          }
        : {}),
      // One checkpoint a turn, after the model's response and before its calls run. A turn's
      // results reach the journal as each call finishes, so a crash while the next response is
      // awaited resumes from that checkpoint and the journal without running anything again.
      onModelResponse: (state) => {
        checkpoint(state, "running");
      },
      toolHooks: {
        // "Started" tells a resume that a call may have had effects it cannot see. A read-only call
        // has none: one a crash cut short is simply run again, so it needs no marker (and no write).
        onStart: (call) =>
          session.registry.get(call.function.name)?.kind === "read"
            ? undefined
            : store.markToolCallStarted(runId, call.id, call.function.name),
        onEnd: async (invocation) => {
          const entry = {
            name: invocation.toolName,
            result: invocation.result,
            content: invocation.rendered,
          };
          completed[invocation.call.id] = entry;
          await store.markToolCallCompleted(runId, invocation.call.id, entry);
        },
      },
    });
    const usage = extraUsage ? sumUsage(result.usage, extraUsage) : result.usage;
    checkpoint(
      { turn: result.turns, history: result.history, usage },
      result.exitReason === "cancelled" ? "stopped" : "finished",
      result.exitReason,
    );
    await checkpoints.close();
    await store.closeRun(runId);
    await trace.close({
      exit_reason: result.exitReason,
      turns: result.turns,
      usage: {
        prompt_tokens: usage.promptTokens,
        completion_tokens: usage.completionTokens,
        total_tokens: usage.totalTokens,
      },
      cost_usd: usage.costUsd,
      ...(result.errorMessage ? { error: result.errorMessage } : {}),
    });
    const data = facts.toJSON();
    return {
      runId,
      exitReason: result.exitReason,
      finalAnswer: result.finalAnswer === null ? null : redactor.redact(result.finalAnswer),
      turns: result.turns,
      usage: {
        promptTokens: usage.promptTokens,
        completionTokens: usage.completionTokens,
        totalTokens: usage.totalTokens,
      },
      costUsd: usage.costUsd,
      tracePath: trace.path,
      filesChanged: data.filesChanged,
      commandsRun: data.commands.map((command) => ({
        command: redactor.redact(command.command),
        exitCode: command.lastExitCode,
        ok: command.lastOk,
      })),
      ...(result.errorMessage ? { errorMessage: redactor.redact(result.errorMessage) } : {}),
    };
  }

  return {
    redactor,
    store,
    run: (task, options = {}) =>
      execute(task, createRunId(), { ...(options.onEvent ? { onEvent: options.onEvent } : {}) }),
    async resume(runId, options = {}) {
      const state = await store.loadForResume(runId);
      const saved = state.checkpoint;
      const task: AgentTask = {
        ...fromCheckpointTask(saved),
        ...(options.signal ? { signal: options.signal } : {}),
      };
      return execute(task, runId, {
        resume: saved,
        startedCallIds: state.startedCallIds,
        ...(options.onEvent ? { onEvent: options.onEvent } : {}),
      });
    },
  };
}

function sumUsage(a: UsageTotals, b: UsageTotals): UsageTotals {
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    totalTokens: a.totalTokens + b.totalTokens,
    costUsd: a.costUsd + b.costUsd,
  };
}
