import type { AgentRunner, RunInput } from "./agent-run.js";
import { createCheckpointStore } from "./persistence/create-checkpoint-store.js";
import { PersistenceError } from "./persistence/persistence-error.js";
import { createRunId, validateId } from "./persistence/validate-id.js";
import type { executeRun } from "./run/execute-run.js";
import { exportStoredRun, importStoredRun, inspectStoredRun } from "./run/hand-over-run.js";
import { fromCheckpointTask } from "./run/run-checkpoint-state.js";
import { createRedactor } from "./safety/create-redactor.js";

import type { AgentRunnerDependencies } from "./run/agent-runner-dependencies.js";

export type { AgentRunnerDependencies, AgentRunnerSettings } from "./run/agent-runner-dependencies.js";

let loadingExecuteRun: Promise<typeof executeRun> | undefined;

/**
 * The run loop and everything it holds (tools, context, sandbox, model adapter) load at the first
 * run: a process that makes a runner and has not run yet (an idle App server) does not carry them.
 * One load per process, shared by every runner.
 */
function loadExecuteRun(): Promise<typeof executeRun> {
  loadingExecuteRun ??= import("./run/execute-run.js").then((module) => module.executeRun);
  return loadingExecuteRun;
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
    async run(task, options = {}) {
      const runId = options.runId ?? createRunId();
      const valid = validateId(runId);
      if (!valid.success) throw new PersistenceError("INVALID_ID", valid.error);
      const execute = await loadExecuteRun();
      return execute(task, runId, core, {
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
      const execute = await loadExecuteRun();
      return execute(task, runId, core, {
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
