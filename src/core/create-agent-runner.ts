import type { AgentRunner, RunInput } from "./agent-run.js";
import { createCheckpointStore } from "./persistence/create-checkpoint-store.js";
import { PersistenceError } from "./persistence/persistence-error.js";
import { createRunId, validateId } from "./persistence/validate-id.js";
import { executeRun } from "./run/execute-run.js";
import { exportStoredRun, importStoredRun, inspectStoredRun } from "./run/hand-over-run.js";
import { fromCheckpointTask } from "./run/run-checkpoint-state.js";
import { createRedactor } from "./safety/create-redactor.js";

import type { AgentRunnerDependencies } from "./run/agent-runner-dependencies.js";

export type { AgentRunnerDependencies, AgentRunnerSettings } from "./run/agent-runner-dependencies.js";

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
      return executeRun(task, runId, core, {
        ...(options.onEvent ? { onEvent: options.onEvent } : {}),
        ...(options.workspaceReady ? { workspaceReady: options.workspaceReady } : {}),
      });
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
