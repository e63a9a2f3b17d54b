import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { ModelError } from "../../../src/core/model/model-error.js";
import type { ModelClient, ModelRequest, ModelResponse } from "../../../src/core/model/model-types.js";
import { createPolicyApprovalGate } from "../../../src/core/policy/create-policy-approval-gate.js";
import { createSandboxRunner } from "../../../src/core/sandbox/create-sandbox-runner.js";
import { detectSandbox } from "../../../src/core/sandbox/detect-sandbox.js";

/**
 * Subagents are read-only sessions: their commands need bubblewrap to mount the workspace
 * read-only, and without it they run none (the shell-running cases skip, saying so).
 */
export const hasBubblewrap = (await detectSandbox()).available;
if (!hasBubblewrap) console.warn("Skipping subagent shell cases: bubblewrap cannot create a sandbox here.");
import { createFileTools } from "../../../src/core/tools/files/create-file-tools.js";
import { createShellTool } from "../../../src/core/tools/shell/create-shell-tool.js";
import type { SessionOptions } from "../../../src/core/session/create-session.js";
import type { Tool, ToolContext } from "../../../src/core/tools/tool.js";

export interface Workspace {
  readonly root: string;
  readonly context: ToolContext;
  readonly controller: AbortController;
  readonly baseTools: Tool[];
  readonly createApprovalGate: SessionOptions["createApprovalGate"];
  remove(): Promise<void>;
}

/** A real temp checkout with the real file tools, shell tool, sandbox runner and approval policy. */
export async function createWorkspace(): Promise<Workspace> {
  const root = await realpath(await mkdtemp(path.join(os.tmpdir(), "agentforge-subagent-")));
  await writeFile(path.join(root, "app.ts"), "export const answer = 42;\n", "utf8");
  await writeFile(path.join(root, "keep.txt"), "keep me\n", "utf8");
  const controller = new AbortController();
  const context: ToolContext = {
    workspaceRoot: root,
    scratchDir: path.join(root, ".scratch"),
    signal: controller.signal,
    runId: "subagent-test",
    commandRunner: createSandboxRunner({ mode: hasBubblewrap ? "bwrap" : "none", workspaceRoot: root }),
  };
  return {
    root,
    context,
    controller,
    baseTools: [...createFileTools(), createShellTool()],
    createApprovalGate: (options) => createPolicyApprovalGate({ ...options, workspaceRoot: root }),
    remove: () => rm(root, { recursive: true, force: true }),
  };
}

/**
 * A model that answers from `respond` and records the requests; `respond` may wait on the call's
 * signal. It also measures how many calls are in flight at once.
 */
export function createProgrammableModel(
  respond: (request: ModelRequest, signal: AbortSignal | undefined, index: number) => Promise<ModelResponse>,
) {
  const requests: ModelRequest[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const client: ModelClient & { requests: ModelRequest[]; maxInFlight(): number } = {
    model: "programmable",
    requests,
    maxInFlight: () => maxInFlight,
    async complete(request, options) {
      const index = requests.push(request) - 1;
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        return await respond(request, options?.signal, index);
      } finally {
        inFlight -= 1;
      }
    },
  };
  return client;
}

export function answer(text: string, costUsd = 0.001): ModelResponse {
  return {
    message: { role: "assistant", content: text },
    finishReason: "stop",
    usage: { promptTokens: 100, completionTokens: 10, totalTokens: 110 },
    model: "programmable",
    costUsd,
    attempts: 1,
  };
}

export function callTools(
  calls: readonly { name: string; args: unknown }[],
  text: string | null = null,
): ModelResponse {
  return {
    message: {
      role: "assistant",
      content: text,
      tool_calls: calls.map((call, index) => ({
        id: `call_${index}_${call.name}`,
        type: "function" as const,
        function: { name: call.name, arguments: JSON.stringify(call.args) },
      })),
    },
    finishReason: "tool_calls",
    usage: { promptTokens: 100, completionTokens: 10, totalTokens: 110 },
    model: "programmable",
    costUsd: 0.001,
    attempts: 1,
  };
}

/** Waits until the call is aborted, as a real HTTP call does, then fails the way the adapter does. */
export function waitForAbort(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_, reject) => {
    const fail = (): void => reject(new ModelError("MODEL_CANCELLED", "cancelled", false));
    if (signal?.aborted) fail();
    else signal?.addEventListener("abort", fail, { once: true });
  });
}

export const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
