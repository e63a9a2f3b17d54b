import type { CommandRunner, CommandRunOptions } from "./tool.js";

/** What a scoped runner adds to every command it runs. */
export interface CommandRunnerScope {
  readonly readOnlyPaths?: readonly string[];
  readonly readOnlyWorkspace?: boolean;
}

/**
 * A runner that can only be tighter than the one it wraps: its read-only paths are added to the
 * caller's, and a read-only workspace stays read-only whatever a caller asks for. A session hands
 * its tools a scoped runner, so no tool, hook or subagent can run a command with more access than
 * the session has.
 */
export function scopeCommandRunner(runner: CommandRunner, scope: CommandRunnerScope): CommandRunner {
  const scopePaths = scope.readOnlyPaths ?? [];
  return {
    run(command: string, options: CommandRunOptions) {
      const readOnlyPaths = [...new Set([...scopePaths, ...(options.readOnlyPaths ?? [])])];
      return runner.run(command, {
        ...options,
        ...(readOnlyPaths.length > 0 ? { readOnlyPaths } : {}),
        ...(scope.readOnlyWorkspace === true || options.readOnlyWorkspace === true
          ? { readOnlyWorkspace: true }
          : {}),
      });
    },
  };
}
