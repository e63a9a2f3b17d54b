import type { RunInput } from "../agent-run.js";
import type { RenderPinnedFactsOptions } from "../context/index.js";
import type { AgentRunnerDependencies } from "./agent-runner-dependencies.js";
import type { LoopEvent } from "../loop/loop-events.js";
import type { UsageTotals } from "../loop/loop-budgets.js";
import { createPolicyApprovalGate } from "../policy/create-policy-approval-gate.js";
import { createAfterToolHooks } from "../session/create-after-tool-hooks.js";
import { createSession, type Session, type SessionOptions } from "../session/create-session.js";
import { discoverSkills, repositorySkillRoot, type SkillSummary } from "../skills/discover-skills.js";
import { createLoadSkillTool } from "../skills/create-load-skill-tool.js";
import { renderSkillIndex } from "../skills/render-skill-index.js";
import { createSubagentTools } from "../subagents/create-subagent-tools.js";
import type { ContentSafety } from "../tools/content-safety.js";
import { createFileTools } from "../tools/files/create-file-tools.js";
import { readSavedOutputTool } from "../tools/files/read-saved-output-tool.js";
import { createShellTool } from "../tools/shell/create-shell-tool.js";
import type { Tool } from "../tools/tool.js";

/**
 * The session of one run: the tool set (files, shell, skills, MCP, subagents), the approval gate
 * for the task's mode, the operator's hooks, and limits sized to the context window.
 */
export interface SessionExtras {
  readonly safety: ContentSafety;
  readonly fencingInstructions: string;
  readonly skills: SkillSummary[];
  readonly onEvent: (event: LoopEvent) => void;
  readonly onSubagentEvent: (name: string, event: LoopEvent, invocationId: string) => void;
  readonly addUsage: (usage: UsageTotals) => void;
  readonly currentTurn: () => number;
}

export function buildRunSession(
  task: RunInput,
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
        defaultTimeoutMs: settings.limits.commandTimeoutMs,
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
    // The operator's prefixes are the runner's to add: no door merges them itself.
    allowPrefixes: [...new Set([...(settings.operatorAllowPrefixes ?? []), ...task.allowPrefixes])],
    toolTimeoutMs: settings.limits.toolTimeoutMs,
    tools,
    budgets: {
      maxTurns: task.maxTurns ?? settings.limits.maxTurns,
      ...(settings.limits.maxTotalTokens === undefined
        ? {}
        : { maxTotalTokens: settings.limits.maxTotalTokens }),
      ...(settings.limits.maxCostUsd === undefined ? {} : { maxCostUsd: settings.limits.maxCostUsd }),
      ...(settings.limits.maxWallClockMs === undefined
        ? {}
        : { maxWallClockMs: settings.limits.maxWallClockMs }),
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
      settings.limits.commandTimeoutMs,
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
export function ledgerLimitsFor(contextWindowTokens: number): { ledger?: RenderPinnedFactsOptions } {
  if (contextWindowTokens >= 32_000) return {};
  return { ledger: { maxArtifacts: 3, maxCommands: 6, maxFailures: 4 } };
}

/** Operator roots first, so a repository skill can never replace an operator's. */
export async function loadSkills(
  workspaceRoot: string,
  operatorRoots: readonly string[],
): Promise<SkillSummary[]> {
  const discovery = await discoverSkills([...operatorRoots, repositorySkillRoot(workspaceRoot)]);
  return [...discovery.skills];
}
