import { stat } from "node:fs/promises";
import { z } from "zod";
import { isSandboxError } from "../../sandbox/sandbox-error.js";
import type { SandboxRunOptions } from "../../sandbox/create-sandbox-runner.js";
import { resolveWorkspacePath } from "../files/resolve-workspace-path.js";
import { defineTool, type CommandOutcome, type Tool, type ToolContext } from "../tool.js";
import { errorResult, okResult, type ToolResult } from "../tool-result.js";
import { formatCommandOutput } from "./format-command-output.js";

export interface ShellToolOptions {
  /** Used when the model gives no timeout. */
  readonly defaultTimeoutMs?: number;
  /** Upper bound on the timeout the model may ask for. */
  readonly maxTimeoutMs?: number;
  readonly maxOutputBytes?: number;
}

const DEFAULT_TIMEOUT_MS = 120_000;
const MAX_TIMEOUT_MS = 600_000;
/** The registry's own timeout must not fire before the runner reports COMMAND_TIMEOUT. */
const REGISTRY_MARGIN_MS = 10_000;

function createShellInput(maxTimeoutMs: number) {
  return z.object({
    command: z
      .string()
      .min(1)
      .describe("One bash command line, run with `bash -c` in a sandbox without network, in the workspace."),
    timeout_ms: z
      .number()
      .int()
      .positive()
      .optional()
      .describe(`Milliseconds before the command and all its children are killed; at most ${maxTimeoutMs}.`),
    workdir: z
      .string()
      .optional()
      .describe("Folder to run in, relative to the workspace root (default: the root)."),
  });
}

/**
 * The `shell` tool. It does no policy: the registry asks the approval gate with the command from
 * describeAction before execute is ever called. The command runs through `context.commandRunner`.
 */
export function createShellTool(options: ShellToolOptions = {}): Tool {
  const maxTimeoutMs = options.maxTimeoutMs ?? MAX_TIMEOUT_MS;
  const defaultTimeoutMs = Math.min(options.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS, maxTimeoutMs);
  return defineTool({
    name: "shell",
    description:
      "Run a bash command in the workspace (tests, builds, linters, git read commands). The network is off, the system is read-only, " +
      "only the workspace and /tmp are writable, and no credentials are set. Output shows the exit code, stdout and stderr. " +
      "Prefer the file tools for reading and editing files.",
    kind: "exec",
    inputSchema: createShellInput(maxTimeoutMs),
    timeoutMs: maxTimeoutMs + REGISTRY_MARGIN_MS,
    describeAction(input) {
      // The folder matters to the policy: relative paths and git's repository search start there.
      return { command: input.command, ...(input.workdir === undefined ? {} : { cwd: input.workdir }) };
    },
    async execute(input, context) {
      const runner = context.commandRunner;
      if (runner === undefined) {
        return errorResult("SANDBOX_UNAVAILABLE", {
          recoverable: false,
          message: "This session has no command runner, so shell commands cannot run.",
          recovery_hint: "Work with the file tools instead; shell commands are not available here.",
          next_actions: ["read_file", "edit_file"],
        });
      }
      const cwd = await resolveWorkdir(context, input.workdir);
      if (!cwd.success) return cwd.error;
      const timeoutMs = Math.min(input.timeout_ms ?? defaultTimeoutMs, maxTimeoutMs);
      const runOptions: SandboxRunOptions = {
        cwd: cwd.value,
        workspaceRoot: context.workspaceRoot,
        timeoutMs,
        signal: context.signal,
        ...(options.maxOutputBytes !== undefined ? { maxOutputBytes: options.maxOutputBytes } : {}),
      };
      let outcome: CommandOutcome;
      try {
        outcome = await runner.run(input.command, runOptions);
      } catch (error) {
        if (isSandboxError(error) && error.code === "SANDBOX_UNAVAILABLE") {
          return errorResult("SANDBOX_UNAVAILABLE", {
            recoverable: false,
            message: `Shell commands are refused because no sandbox is available: ${error.message}`,
            recovery_hint: `Continue with the file tools. The operator can fix this: ${error.fix}`,
            next_actions: ["read_file", "edit_file"],
          });
        }
        throw error;
      }
      return toResult(input.command, timeoutMs, outcome, context);
    },
  });
}

async function resolveWorkdir(
  context: ToolContext,
  workdir: string | undefined,
): Promise<{ success: true; value: string } | { success: false; error: ToolResult }> {
  if (workdir === undefined || workdir === "" || workdir === ".")
    return { success: true, value: context.workspaceRoot };
  const resolved = resolveWorkspacePath(context.workspaceRoot, workdir, { forWrite: false });
  if (!resolved.success) return resolved;
  const stats = await stat(resolved.value.absolute).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw error;
  });
  if (stats === undefined) {
    return {
      success: false,
      error: errorResult("FILE_NOT_FOUND", {
        message: `The workdir ${workdir} does not exist.`,
        recovery_hint: "Give a folder that exists, relative to the workspace root, or leave workdir out.",
        next_actions: ["list_dir ."],
      }),
    };
  }
  if (!stats.isDirectory()) {
    return {
      success: false,
      error: errorResult("NOT_A_DIRECTORY", {
        message: `The workdir ${workdir} is a file, not a folder.`,
        recovery_hint: "Give the folder that contains it.",
        next_actions: ["list_dir ."],
      }),
    };
  }
  return { success: true, value: resolved.value.absolute };
}

function toResult(
  command: string,
  timeoutMs: number,
  outcome: CommandOutcome,
  context: ToolContext,
): ToolResult {
  const output = formatCommandOutput(outcome);
  const metadata = {
    command,
    exitCode: outcome.exitCode,
    durationMs: outcome.durationMs,
    timedOut: outcome.timedOut,
    outputTruncated: outcome.outputTruncated,
  };
  if (context.signal.aborted && !outcome.timedOut) {
    return errorResult("CANCELLED", {
      status: "cancelled",
      recoverable: false,
      message: "The run was cancelled while the command was running; it was killed.",
      recovery_hint: "Nothing to do: the run is stopping.",
      next_actions: [],
      output,
      metadata,
    });
  }
  if (outcome.timedOut) {
    return errorResult("COMMAND_TIMEOUT", {
      status: "timeout",
      message: `The command did not finish within ${timeoutMs} ms and was killed with all its child processes.`,
      recovery_hint:
        "Run a narrower command (one test file, a filter), or pass a larger timeout_ms if the work really takes longer. Commands cannot wait for input.",
      next_actions: ["run a narrower command", "retry with a larger timeout_ms"],
      output,
      metadata,
    });
  }
  if (outcome.exitCode === 0) {
    return okResult(output, { summary: `exit 0 in ${outcome.durationMs} ms: ${command}`, metadata });
  }
  const how =
    outcome.exitCode === null
      ? `was killed by ${outcome.signal ?? "a signal"}`
      : `exited with code ${outcome.exitCode}`;
  return errorResult("COMMAND_FAILED", {
    message: `The command ${how}.`,
    recovery_hint: "Read stderr above for the cause, fix it, and run the command again.",
    next_actions: ["read the error output", "fix the cause and rerun the command"],
    output,
    metadata,
    summary: `exit ${outcome.exitCode ?? outcome.signal ?? "?"} in ${outcome.durationMs} ms: ${command}`,
  });
}
