import type { RunInput } from "../agent-run.js";
import type { Redactor } from "../safety/create-redactor.js";
import { createTraceWriter, type TraceWriter } from "../trace/create-trace-writer.js";

export interface OpenRunTraceOptions {
  readonly runId: string;
  readonly task: RunInput;
  readonly path: string;
  readonly isResume: boolean;
  readonly model: string;
  readonly configDigest: string;
  readonly redactor: Redactor;
}

/** The run's trace: a header that says what was asked, appended to when the run is resumed. */
export function openRunTrace(options: OpenRunTraceOptions): TraceWriter {
  const { task } = options;
  return createTraceWriter({
    path: options.path,
    append: options.isResume,
    redact: (text) => options.redactor.redact(text),
    header: {
      run_id: options.runId,
      task: task.mode === "plan" ? "plan" : "run",
      user_goal: task.prompt,
      start_time: new Date().toISOString(),
      model: options.model,
      config_digest: options.configDigest,
      workspace: task.workspaceRoot,
      mode: task.mode,
      approval_mode: task.approvalMode,
    },
  });
}
