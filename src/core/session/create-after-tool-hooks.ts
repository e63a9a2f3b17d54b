import type { AfterToolHook } from "../tools/create-tool-registry.js";
import type { CommandRunner } from "../tools/tool.js";

export interface AfterToolHookConfig {
  readonly tools: readonly string[];
  readonly command: string;
}

/**
 * Operator hooks (never from the repository): after a named tool succeeds, run a command in the
 * sandbox — a formatter after edits, say. The hook's outcome is appended to the tool's result so
 * the model sees it; a failing hook does not turn the tool's success into a failure.
 */
export function createAfterToolHooks(
  configs: readonly AfterToolHookConfig[],
  runner: CommandRunner | undefined,
  timeoutMs: number,
): AfterToolHook[] {
  if (!runner) return [];
  return configs.map((config) => async ({ tool, result }, context) => {
    if (!result.ok || !config.tools.includes(tool.name)) return;
    // The session's runner, scoped to its access (read-only sessions stay read-only), when it has one.
    const scoped = context.commandRunner ?? runner;
    const outcome = await scoped.run(config.command, {
      cwd: context.workspaceRoot,
      workspaceRoot: context.workspaceRoot,
      timeoutMs,
      signal: context.signal,
    });
    const passed = outcome.exitCode === 0 && !outcome.timedOut;
    const detail = passed
      ? "passed"
      : `failed (exit ${outcome.exitCode ?? "none"}${outcome.timedOut ? ", timed out" : ""}): ${(outcome.stderr || outcome.stdout).slice(-2_000)}`;
    return { ...result, output: `${result.output}\n[after-tool hook \`${config.command}\` ${detail}]` };
  });
}
