import type { CommandRecord } from "../../pull-request/render-pull-request-body.js";
import type { JobWorkspace } from "../prepare-job-workspace.js";

export interface TestRun {
  readonly records: readonly CommandRecord[];
  readonly isPassing: boolean;
  /** The last lines of the first failing command's output, for the comment. */
  readonly failureExcerpt?: string;
}

const EXCERPT_LINES = 20;

function tail(text: string): string {
  return text.trimEnd().split("\n").slice(-EXCERPT_LINES).join("\n");
}

/**
 * The repository's test commands, run after the agent finished, in the same sandbox with the
 * network off: the harness runs them, not the model, so the result in the pull request is not
 * the model's word for it. Every command runs, so the record is complete.
 */
export async function runTestStage(
  workspace: Pick<JobWorkspace, "workspaceRoot" | "commandRunner">,
  commands: readonly string[],
  options: { readonly timeoutMs: number; readonly signal: AbortSignal },
): Promise<TestRun> {
  const records: CommandRecord[] = [];
  let failureExcerpt: string | undefined;
  for (const command of commands) {
    if (options.signal.aborted) break;
    const outcome = await workspace.commandRunner.run(command, {
      cwd: workspace.workspaceRoot,
      workspaceRoot: workspace.workspaceRoot,
      timeoutMs: options.timeoutMs,
      signal: options.signal,
      network: false,
    });
    const ok = outcome.exitCode === 0 && !outcome.timedOut;
    records.push({ command, ok, exitCode: outcome.exitCode });
    if (!ok && failureExcerpt === undefined)
      failureExcerpt = tail(`${outcome.stdout}\n${outcome.stderr}${outcome.timedOut ? "\n(timed out)" : ""}`);
  }
  return {
    records,
    isPassing: records.length === commands.length && records.every((record) => record.ok),
    ...(failureExcerpt === undefined ? {} : { failureExcerpt }),
  };
}
