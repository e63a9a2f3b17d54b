import type { AgentRunner, RunInput } from "./agent-run.js";
import type { SubagentConfig } from "./config/operator-config-schema.js";
import type { RunLimits } from "./config/run-limits.js";
import type { ModelClient } from "./model/model-types.js";
import { createCheckpointStore } from "./persistence/create-checkpoint-store.js";
import { PersistenceError } from "./persistence/persistence-error.js";
import { createRunId, validateId } from "./persistence/validate-id.js";
import type { PendingApproval } from "./policy/create-policy-approval-gate.js";
import { executeRun } from "./run/execute-run.js";
import { exportStoredRun, importStoredRun, inspectStoredRun } from "./run/hand-over-run.js";
import { fromCheckpointTask } from "./run/run-checkpoint-state.js";
import { createRedactor, type Redactor } from "./safety/create-redactor.js";
import type { AfterToolHookConfig } from "./session/create-after-tool-hooks.js";
import type { ApprovalRequest } from "./tools/approval-gate.js";
import type { CommandRunner, Tool } from "./tools/tool.js";

export interface AgentRunnerSettings {
  readonly limits: RunLimits;
  readonly contextWindow: number;
  /** The operator's command prefixes, allowed in every run besides the task's own. */
  readonly operatorAllowPrefixes?: readonly string[];
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
  /** A redactor the door already holds; the secrets above are added to it. */
  readonly redactor?: Redactor;
  /** Asks a person; only interactive doors pass it. Without it, needs-confirmation means refused. */
  readonly confirm?: (request: ApprovalRequest, pending: PendingApproval) => Promise<boolean>;
}

/**
 * Composes the core's runner: one redactor and one checkpoint store for every run it makes.
 * Doors call `run` with a task; `resume` continues a run from its checkpoint; `exportRun` and
 * `importRun` move a run in flight to another machine.
 */
export function createAgentRunner(dependencies: AgentRunnerDependencies): AgentRunner {
  const redactor = dependencies.redactor ?? createRedactor();
  for (const secret of dependencies.secrets ?? []) redactor.addSecret(secret);
  const store = createCheckpointStore(dependencies.dataDir);
  const core = { dependencies, store, redactor };
  return {
    run(task, options = {}) {
      const runId = options.runId ?? createRunId();
      const valid = validateId(runId);
      if (!valid.success) return Promise.reject(new PersistenceError("INVALID_ID", valid.error));
      return executeRun(task, runId, core, options.onEvent ? { onEvent: options.onEvent } : {});
    },
    async resume(runId, options = {}) {
      const state = await store.loadForResume(runId);
      const task: RunInput = {
        ...fromCheckpointTask(state.checkpoint),
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.maxTurns === undefined ? {} : { maxTurns: options.maxTurns }),
      };
      return executeRun(task, runId, core, {
        resume: { checkpoint: state.checkpoint, startedCallIds: state.startedCallIds },
        ...(options.onEvent ? { onEvent: options.onEvent } : {}),
      });
    },
    inspect: (runId) => inspectStoredRun(store, runId),
    exportRun: (runId) => exportStoredRun(store, runId),
    importRun: (handOver, placement) => importStoredRun(store, handOver, placement),
    redact: (text) => redactor.redact(text),
    addSecret: (value) => redactor.addSecret(value),
  };
}
