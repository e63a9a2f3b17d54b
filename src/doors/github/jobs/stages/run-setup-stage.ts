import { runSetupCommands } from "../../../../core/sandbox/index.js";
import type { JobWorkspace } from "../prepare-job-workspace.js";

export type SetupStageResult =
  | { readonly kind: "done" }
  /** A resumed run's workspace was set up by the worker that started it. */
  | { readonly kind: "skipped" }
  | { readonly kind: "failed"; readonly command: string; readonly outputTail: string };

const TAIL_LINES = 20;

/**
 * The repository's setup commands (`npm ci`), network on, no secrets, in the checkout's sandbox,
 * before the agent starts. The first failure stops the job: the agent would only work on a
 * broken tree.
 */
export async function runSetupStage(
  workspace: Pick<JobWorkspace, "workspaceRoot" | "commandRunner" | "isResume">,
  commands: readonly string[],
  options: { readonly timeoutMs: number; readonly signal: AbortSignal },
): Promise<SetupStageResult> {
  if (workspace.isResume || commands.length === 0) return { kind: "skipped" };
  const setup = await runSetupCommands(commands, {
    runner: workspace.commandRunner,
    cwd: workspace.workspaceRoot,
    timeoutMs: options.timeoutMs,
    signal: options.signal,
  });
  if (setup.ok) return { kind: "done" };
  const failed = setup.results.at(-1);
  const output =
    failed === undefined ? "" : `${failed.outcome.stdout}\n${failed.outcome.stderr}`.trim().split("\n");
  return {
    kind: "failed",
    command: setup.failedCommand ?? "?",
    outputTail: Array.isArray(output) ? output.slice(-TAIL_LINES).join("\n") : output,
  };
}
