import type { ChatMessage, ToolCall } from "../../../src/core/model/model-types.js";
import type { RunCheckpoint } from "../../../src/core/persistence/run-checkpoint.js";

export function toolCall(id: string, name: string, input: Record<string, unknown> = {}): ToolCall {
  return { id, type: "function", function: { name, arguments: JSON.stringify(input) } };
}

export function makeCheckpoint(runId: string, overrides: Partial<RunCheckpoint> = {}): RunCheckpoint {
  const history: ChatMessage[] = [
    { role: "system", content: "You are AgentForge." },
    { role: "user", content: "fix the failing test" },
  ];
  return {
    runId,
    task: {
      prompt: "fix the failing test",
      workspaceRoot: "/work/repo",
      mode: "build",
      approvalMode: "never",
      allowPrefixes: ["npm test"],
      maxTurns: 30,
    },
    turn: 0,
    history,
    pinnedFacts: { goal: "fix the failing test", filesRead: [] },
    usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0, costUsd: 0 },
    completedToolCalls: {},
    tracePath: null,
    status: "running",
    updatedAt: "2025-01-01T00:00:00.000Z",
    ...overrides,
  };
}
