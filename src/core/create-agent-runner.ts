import type { AgentRunResult, AgentRunner, AgentTask } from "./agent-run.js";
import {
  createContextManager,
  createModelCompactor,
  createPinnedFacts,
  createTokenCounter,
  pinnedFactsFromJSON,
  type PinnedFacts,
  type RenderPinnedFactsOptions,
} from "./context/index.js";
import type { LoopEvent, LoopEventListener } from "./loop/loop-events.js";
import { runLoop, type LoopCheckpointState } from "./loop/run-loop.js";
import type { UsageTotals } from "./loop/loop-budgets.js";
import type { ChatMessage, ModelClient } from "./model/model-types.js";
import { createCheckpointStore, type CheckpointStore } from "./persistence/create-checkpoint-store.js";
import { planResume, type ResumePlan } from "./persistence/plan-resume.js";
import type { CompletedToolCall, RunCheckpoint } from "./persistence/run-checkpoint.js";
import { createRunId } from "./persistence/validate-id.js";
import { createPolicyApprovalGate } from "./policy/create-policy-approval-gate.js";
import { createFence } from "./safety/create-fence.js";
import { createRedactor, type Redactor } from "./safety/create-redactor.js";
import { createContentSafety } from "./session/create-content-safety.js";
import { createAfterToolHooks, type AfterToolHookConfig } from "./session/create-after-tool-hooks.js";

const DEFAULT_HOOK_TIMEOUT_MS = 120_000;
import { createSession, type Session, type SessionOptions } from "./session/create-session.js";
import { buildTaskMessage } from "./session/build-task-message.js";
import { createTraceWriter } from "./trace/create-trace-writer.js";
import { eventAttributes } from "./trace/event-attributes.js";
import type { ContentSafety } from "./tools/content-safety.js";
import type { SubagentConfig } from "./config/operator-config-schema.js";
import { createSubagentTools } from "./subagents/create-subagent-tools.js";
import { discoverSkills, repositorySkillRoot, type SkillSummary } from "./skills/discover-skills.js";
import { createLoadSkillTool } from "./skills/create-load-skill-tool.js";
import { renderSkillIndex } from "./skills/render-skill-index.js";
import type { ApprovalRequest } from "./tools/approval-gate.js";
import type { PendingApproval } from "./policy/create-policy-approval-gate.js";
import type { Tool, CommandRunner } from "./tools/tool.js";
import { createFileTools } from "./tools/files/create-file-tools.js";
import { readSavedOutputTool } from "./tools/files/read-saved-output-tool.js";
import { createShellTool } from "./tools/shell/create-shell-tool.js";
import { renderResultBody, renderStatusLine } from "./tools/render-tool-result.js";
import type { ToolResult } from "./tools/tool-result.js";

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
    const session = buildSession(task, dependencies, {
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
          renderResult: (name, result) => renderForModel(name, result, safety),
        })
      : null;
    if (plan) {
      trace.record("run-resumed", options.resume?.turn ?? 0, {
        "resume.reused_results": plan.reusedResults.length,
        "resume.interrupted_calls": plan.interruptedCalls.length,
        "resume.pending_calls": plan.pendingCalls.length,
      });
      replaySettledCalls(plan, options.resume?.turn ?? 0, { facts, context, onEvent });
    }
    const history: ChatMessage[] = plan
      ? [...plan.history]
      : [{ role: "user", content: buildTaskMessage(task, fence) }];
    const completed: Record<string, CompletedToolCall> = {
      ...(options.resume?.completedToolCalls ?? {}),
    };
    const checkpoint = async (
      state: LoopCheckpointState,
      status: RunCheckpoint["status"],
      exitReason?: RunCheckpoint["exitReason"],
    ): Promise<void> => {
      await store.save(runId, {
        runId,
        task: toCheckpointTask(task),
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
        ...(dependencies.commandRunner ? { commandRunner: dependencies.commandRunner } : {}),
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
      onModelResponse: (state) => checkpoint(state, "running"),
      onTurnComplete: (state) => checkpoint(state, "running"),
      toolHooks: {
        onStart: (call) => store.markToolCallStarted(runId, call.id, call.function.name),
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
    await checkpoint(
      { turn: result.turns, history: result.history, usage },
      result.exitReason === "cancelled" ? "stopped" : "finished",
      result.exitReason,
    );
    trace.close({
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

interface SessionExtras {
  readonly safety: ContentSafety;
  readonly fencingInstructions: string;
  readonly skills: SkillSummary[];
  readonly onEvent: (event: LoopEvent) => void;
  readonly onSubagentEvent: (name: string, event: LoopEvent, invocationId: string) => void;
  readonly addUsage: (usage: UsageTotals) => void;
  readonly currentTurn: () => number;
}

function buildSession(
  task: AgentTask,
  dependencies: AgentRunnerDependencies,
  extras: SessionExtras,
): Session {
  const { settings } = dependencies;
  const createApprovalGate: SessionOptions["createApprovalGate"] = (gate) =>
    createPolicyApprovalGate({
      ...gate,
      workspaceRoot: task.workspaceRoot,
      ...(dependencies.confirm ? { confirm: dependencies.confirm } : {}),
    });
  const tools: Tool[] = [...createFileTools(), readSavedOutputTool];
  if (dependencies.commandRunner)
    tools.push(
      createShellTool({
        ...(settings.commandTimeoutMs ? { defaultTimeoutMs: settings.commandTimeoutMs } : {}),
      }),
    );
  if (extras.skills.length > 0) tools.push(createLoadSkillTool(extras.skills));
  tools.push(...(dependencies.mcpTools ?? []));
  if (dependencies.subagents) {
    tools.push(
      ...createSubagentTools({
        model: dependencies.model,
        baseTools: tools,
        createApprovalGate,
        safety: extras.safety,
        fencingInstructions: extras.fencingInstructions,
        operatorSubagents: dependencies.subagents.operatorSubagents,
        onEvent: extras.onEvent,
        onSubagentEvent: extras.onSubagentEvent,
        onUsage: (usage) => extras.addUsage(usage),
        currentTurn: extras.currentTurn,
      }),
    );
  }
  return createSession({
    workspaceRoot: task.workspaceRoot,
    mode: task.mode,
    approvalMode: task.approvalMode,
    allowPrefixes: task.allowPrefixes,
    tools,
    budgets: {
      maxTurns: task.maxTurns ?? settings.maxTurns,
      ...(settings.maxTotalTokens === undefined ? {} : { maxTotalTokens: settings.maxTotalTokens }),
      ...(settings.maxCostUsd === undefined ? {} : { maxCostUsd: settings.maxCostUsd }),
      ...(settings.maxWallClockMs === undefined ? {} : { maxWallClockMs: settings.maxWallClockMs }),
    },
    safety: extras.safety,
    createApprovalGate,
    fencingInstructions: extras.fencingInstructions,
    ...(extras.skills.length > 0 ? { skillIndex: renderSkillIndex(extras.skills) } : {}),
    ...(task.repositoryInstructions
      ? { repositoryInstructions: extras.safety.fence(task.repositoryInstructions, "repository:AGENTS.md") }
      : {}),
    maxOutputChars: settings.maxOutputChars ?? observationCharsFor(settings.contextWindow),
    afterToolHooks: createAfterToolHooks(
      dependencies.afterToolHooks ?? [],
      dependencies.commandRunner,
      settings.commandTimeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS,
    ),
  });
}

/** The registry's cap on what one observation shows the model, in characters. */
const MAX_OBSERVATION_CHARS = 20_000;

/**
 * An observation must leave room for the prompt, the ledger and the latest turns, or a single
 * big grep fills a small window and the run stops with nothing to prune. A quarter of the
 * window's tokens, at about three characters a token; the full output stays in the scratch area.
 */
function observationCharsFor(contextWindowTokens: number): number {
  return Math.max(2_000, Math.min(MAX_OBSERVATION_CHARS, Math.floor(contextWindowTokens * 0.75)));
}

/**
 * The ledger is never pruned, so in a small window its longest lists are cut shorter: saved-output
 * paths (artifacts), commands and failures. Files read and changed keep their default caps.
 */
function ledgerLimitsFor(contextWindowTokens: number): { ledger?: RenderPinnedFactsOptions } {
  if (contextWindowTokens >= 32_000) return {};
  return { ledger: { maxArtifacts: 3, maxCommands: 6, maxFailures: 4 } };
}

/** Operator roots first, so a repository skill can never replace an operator's. */
async function loadSkills(workspaceRoot: string, operatorRoots: readonly string[]): Promise<SkillSummary[]> {
  const discovery = await discoverSkills([...operatorRoots, repositorySkillRoot(workspaceRoot)]);
  return [...discovery.skills];
}

function restoreFacts(task: AgentTask, resume: RunCheckpoint | undefined): PinnedFacts {
  if (resume) {
    const restored = pinnedFactsFromJSON(resume.pinnedFacts);
    if (restored.success) return restored.value;
  }
  return createPinnedFacts(task.prompt);
}

/**
 * A checkpoint needs the stored result only of a call its history does not answer yet; the journal
 * has every completion anyway. Keeping all of them would copy every tool output a second time into
 * a file rewritten twice a turn, and validating it on save grows with the whole run.
 */
function unansweredCompletedCalls(
  completed: Readonly<Record<string, CompletedToolCall>>,
  history: readonly ChatMessage[],
): Record<string, CompletedToolCall> {
  const unanswered = new Set<string>();
  for (const message of history) {
    if (message.role === "assistant") for (const call of message.tool_calls ?? []) unanswered.add(call.id);
    else if (message.role === "tool") unanswered.delete(message.tool_call_id);
  }
  const kept: Record<string, CompletedToolCall> = {};
  for (const id of unanswered) {
    const entry = completed[id];
    if (entry) kept[id] = entry;
  }
  return kept;
}

/**
 * Calls that finished (or were cut off) after the last checkpoint never reached `observe` in the
 * crashed process: their facts (files changed, commands, failures) and their outcome in the
 * trace would be lost. Replays them in call order, as the loop would have after the batch.
 */
function replaySettledCalls(
  plan: ResumePlan,
  turn: number,
  sinks: {
    readonly facts: PinnedFacts;
    readonly context: { recordToolResult(callId: string, result: ToolResult): void };
    readonly onEvent: LoopEventListener;
  },
): void {
  const settled = new Map<string, { name: string; result: unknown }>();
  for (const reused of plan.reusedResults) settled.set(reused.callId, reused);
  for (const interrupted of plan.interruptedCalls) settled.set(interrupted.callId, interrupted);
  const argumentsById = new Map<string, string>();
  for (const message of plan.history) {
    if (message.role === "assistant")
      for (const call of message.tool_calls ?? []) argumentsById.set(call.id, call.function.arguments);
    if (message.role !== "tool") continue;
    const entry = settled.get(message.tool_call_id);
    if (!entry || !isToolResult(entry.result)) continue;
    const { result } = entry;
    sinks.facts.observeToolCall(
      entry.name,
      parseJsonArguments(argumentsById.get(message.tool_call_id)),
      result,
    );
    sinks.context.recordToolResult(message.tool_call_id, result);
    sinks.onEvent({
      type: "tool-call-end",
      turn,
      callId: message.tool_call_id,
      name: entry.name,
      result,
      durationMs: 0,
    });
  }
}

/** A stored result is JSON from our own checkpoint; checked before the facts ledger reads it. */
function isToolResult(value: unknown): value is ToolResult {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as Partial<Record<keyof ToolResult, unknown>>;
  return (
    typeof candidate.ok === "boolean" &&
    typeof candidate.status === "string" &&
    typeof candidate.summary === "string" &&
    Array.isArray(candidate.artifacts) &&
    Array.isArray(candidate.next_actions)
  );
}

function parseJsonArguments(text: string | undefined): unknown {
  if (text === undefined) return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    // Malformed arguments were already answered with INVALID_ARGUMENTS; the ledger only needs a target.
    return { raw: text, parseError: error instanceof Error ? error.message : String(error) };
  }
}

function renderForModel(
  name: string,
  result: ToolResult,
  safety: ReturnType<typeof createContentSafety>,
): string {
  return `${renderStatusLine(name, result)}\n${safety.fence(renderResultBody(result), `tool:${name}`)}`;
}

function sumUsage(a: UsageTotals, b: UsageTotals): UsageTotals {
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    totalTokens: a.totalTokens + b.totalTokens,
    costUsd: a.costUsd + b.costUsd,
  };
}

function toCheckpointTask(task: AgentTask): RunCheckpoint["task"] {
  return {
    prompt: task.prompt,
    workspaceRoot: task.workspaceRoot,
    mode: task.mode,
    approvalMode: task.approvalMode,
    allowPrefixes: task.allowPrefixes,
    ...(task.maxTurns === undefined ? {} : { maxTurns: task.maxTurns }),
    ...(task.untrustedInputs ? { untrustedInputs: task.untrustedInputs } : {}),
    ...(task.repositoryInstructions ? { repositoryInstructions: task.repositoryInstructions } : {}),
    ...(task.tracePath ? { settings: { tracePath: task.tracePath } } : {}),
  };
}

function fromCheckpointTask(checkpoint: RunCheckpoint): AgentTask {
  const saved = checkpoint.task;
  return {
    prompt: saved.prompt,
    workspaceRoot: saved.workspaceRoot,
    mode: saved.mode,
    approvalMode: saved.approvalMode,
    allowPrefixes: saved.allowPrefixes,
    ...(saved.maxTurns === undefined ? {} : { maxTurns: saved.maxTurns }),
    ...(saved.untrustedInputs ? { untrustedInputs: saved.untrustedInputs } : {}),
    ...(saved.repositoryInstructions ? { repositoryInstructions: saved.repositoryInstructions } : {}),
    ...(checkpoint.tracePath ? { tracePath: checkpoint.tracePath } : {}),
  };
}
