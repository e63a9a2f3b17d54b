import { z } from "zod";
import type { SubagentConfig } from "../config/operator-config-schema.js";
import type { LoopBudgets, UsageTotals } from "../loop/loop-budgets.js";
import type { LoopEvent } from "../loop/loop-events.js";
import type { ModelClient } from "../model/model-types.js";
import type { CostUsd } from "../model/cost-usd.js";
import type { SessionOptions } from "../session/create-session.js";
import type { ContentSafety } from "../tools/content-safety.js";
import { defineTool, type Tool } from "../tools/tool.js";
import { errorResult, type ToolResult } from "../tools/tool-result.js";
import { createSemaphore } from "./create-semaphore.js";
import { DEFAULT_SUBAGENTS } from "./default-subagents.js";
import { runSubagent, SUBAGENT_SERVICE } from "./run-subagent.js";
import {
  SUBAGENT_READ_TOOLS,
  SUBAGENT_TOOL_PREFIX,
  subagentFromConfig,
  validateSubagentDefinition,
  type SubagentDefinition,
} from "./subagent-definition.js";

export interface SubagentToolsOptions {
  readonly model: ModelClient;
  /** The session's tools; each subagent gets only the read tools among them (read_file, list_dir, glob, grep, shell). */
  readonly baseTools: readonly Tool[];
  readonly createApprovalGate: SessionOptions["createApprovalGate"];
  readonly safety: ContentSafety;
  readonly fencingInstructions: string;
  /** Replaces the default six. */
  readonly definitions?: readonly SubagentDefinition[];
  /** From the operator config; one with a default's name replaces that default. */
  readonly operatorSubagents?: readonly SubagentConfig[];
  /** Defaults for definitions that set none. */
  readonly maxTurns?: number;
  readonly timeoutMs?: number;
  /** Token and cost limits of each subagent run. */
  readonly budgets?: Omit<LoopBudgets, "maxTurns">;
  /** How many subagents run at once across all these tools. Default 3. */
  readonly concurrency?: number;
  /** How long a call may wait for a free slot before it fails. Default: the subagent's timeout. */
  readonly maxQueueWaitMs?: number;
  /** Gets `subagent-start` and `subagent-end`, to put in the parent's event stream and trace. */
  readonly onEvent?: (event: LoopEvent) => void;
  /** Every event of a subagent's own loop, for a trace nested under the parent's (`invocationId` tells parallel runs apart). */
  readonly onSubagentEvent?: (name: string, event: LoopEvent, invocationId: string) => void;
  /**
   * Called once per finished subagent run with what it spent; the runner adds it to the parent's
   * totals (and budget), so a subagent's tokens and cost are never lost.
   */
  readonly onUsage?: (usage: UsageTotals, costUsd: CostUsd) => void;
  /** The parent's current turn, for the `turn` of the events above. */
  readonly currentTurn?: () => number;
}

const DEFAULT_MAX_TURNS = 12;
const DEFAULT_TIMEOUT_MS = 300_000;
const DEFAULT_CONCURRENCY = 3;
/** The registry's own timeout must not fire before the subagent's, which returns the partial answer. */
const REGISTRY_MARGIN_MS = 5_000;

const subagentInput = z.object({
  goal: z
    .string()
    .trim()
    .min(1)
    .max(20_000)
    .describe(
      "What the subagent should find out or review, with every detail it needs: it sees nothing else of this conversation.",
    ),
});

/**
 * `subagent_<name>` tools: each takes `{goal}` and returns one result, the subagent's final answer,
 * with `{exitReason, turns, usage, costUsd}` in its metadata. All tools of one call share one
 * concurrency limit.
 */
export function createSubagentTools(options: SubagentToolsOptions): Tool[] {
  const definitions = mergeDefinitions(
    options.definitions ?? DEFAULT_SUBAGENTS,
    (options.operatorSubagents ?? []).map(subagentFromConfig),
  );
  const semaphore = createSemaphore(options.concurrency ?? DEFAULT_CONCURRENCY);
  const readTools: readonly string[] = SUBAGENT_READ_TOOLS;
  let invocationCounter = 0;

  return definitions.map((definition) => {
    const allowedTools = (definition.tools ?? SUBAGENT_READ_TOOLS).filter((name) => readTools.includes(name));
    // Never a subagent tool, whatever the caller passed: a subagent cannot start subagents.
    const tools = options.baseTools.filter((tool) => !tool.name.startsWith(SUBAGENT_TOOL_PREFIX));
    const timeoutMs = definition.timeoutMs ?? options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const maxQueueWaitMs = options.maxQueueWaitMs ?? timeoutMs;
    const name = definition.name;
    return defineTool({
      name: `${SUBAGENT_TOOL_PREFIX}${name}`,
      description: `${definition.description} Runs a read-only helper with its own context; returns its final answer.`,
      kind: "read",
      source: `subagent:${name}`,
      inputSchema: subagentInput,
      timeoutMs: maxQueueWaitMs + timeoutMs + REGISTRY_MARGIN_MS,
      async execute(input, context): Promise<ToolResult> {
        if (context.services?.[SUBAGENT_SERVICE] !== undefined) {
          return errorResult("PERMISSION_DENIED", {
            status: "refused",
            message: "A subagent cannot start subagents.",
            recovery_hint: "Do the work yourself with your read tools and answer.",
            next_actions: ["use read_file, grep or glob", "answer with what you found"],
          });
        }
        const waitController = new AbortController();
        const waitTimer = setTimeout(() => waitController.abort(), maxQueueWaitMs);
        const release = await semaphore.acquire(AbortSignal.any([context.signal, waitController.signal]));
        clearTimeout(waitTimer);
        if (!release) {
          return context.signal.aborted
            ? errorResult("CANCELLED", {
                status: "cancelled",
                recoverable: false,
                message: `The subagent ${name} was cancelled before it started.`,
                recovery_hint: "Nothing to do: the run is stopping.",
                next_actions: [],
              })
            : errorResult("SUBAGENT_FAILED", {
                message: `The subagent ${name} waited ${maxQueueWaitMs} ms for a free slot (at most ${options.concurrency ?? DEFAULT_CONCURRENCY} run at once).`,
                recovery_hint: "Start fewer subagents at once, or continue with your own tools.",
                next_actions: ["retry later", "continue without the subagent"],
              });
        }
        const invocationId = `${name}-${++invocationCounter}`;
        const turn = options.currentTurn?.() ?? 0;
        options.onEvent?.({ type: "subagent-start", turn, name, goal: input.goal });
        try {
          const outcome = await runSubagent({
            name,
            instructions: definition.instructions,
            goal: input.goal,
            model: options.model,
            tools,
            allowedTools,
            maxTurns: definition.maxTurns ?? options.maxTurns ?? DEFAULT_MAX_TURNS,
            timeoutMs,
            ...(options.budgets ? { budgets: options.budgets } : {}),
            safety: options.safety,
            createApprovalGate: options.createApprovalGate,
            fencingInstructions: options.fencingInstructions,
            context,
            onEvent: (event) => options.onSubagentEvent?.(name, event, invocationId),
          });
          options.onUsage?.(outcome.usage, outcome.usage.costUsd);
          options.onEvent?.({
            type: "subagent-end",
            turn: options.currentTurn?.() ?? turn,
            name,
            exitReason: outcome.exitReason,
            costUsd: outcome.usage.costUsd,
          });
          return outcome.result;
        } finally {
          release();
        }
      },
    });
  });
}

function mergeDefinitions(
  base: readonly SubagentDefinition[],
  operator: readonly SubagentDefinition[],
): SubagentDefinition[] {
  const byName = new Map<string, SubagentDefinition>();
  for (const definition of [...base, ...operator])
    byName.set(definition.name, validateSubagentDefinition(definition));
  return [...byName.values()];
}
