import type { CommandOutcome, CommandRunner } from "../tools/tool.js";

export interface SetupCommandResult {
  readonly command: string;
  readonly outcome: CommandOutcome;
}

export interface SetupRunResult {
  readonly ok: boolean;
  readonly results: readonly SetupCommandResult[];
  /** The command that failed or timed out; later commands were not run. */
  readonly failedCommand?: string;
}

export interface RunSetupCommandsOptions {
  readonly runner: CommandRunner;
  readonly cwd: string;
  /** Per command. */
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  readonly maxOutputBytes?: number;
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * The setup phase: operator- or repository-configured commands (`npm ci`) run one after another in
 * the same sandbox as the agent's commands, with the network on and still no secrets. The model
 * never chooses these. The first failure stops the phase.
 */
export async function runSetupCommands(
  commands: readonly string[],
  options: RunSetupCommandsOptions,
): Promise<SetupRunResult> {
  const results: SetupCommandResult[] = [];
  for (const command of commands) {
    const outcome = await options.runner.run(command, {
      cwd: options.cwd,
      timeoutMs: options.timeoutMs,
      network: true,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.maxOutputBytes !== undefined ? { maxOutputBytes: options.maxOutputBytes } : {}),
      ...(options.env ? { env: options.env } : {}),
    });
    results.push({ command, outcome });
    if (outcome.exitCode !== 0 || outcome.timedOut) return { ok: false, results, failedCommand: command };
  }
  return { ok: true, results };
}
