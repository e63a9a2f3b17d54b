import { discoverWorkspaceRepository } from "../../core/git/index.js";
import { realpath } from "node:fs/promises";
import { createInterface } from "node:readline/promises";
import { isEveryActionRefused, type RunResult } from "../../core/agent-run.js";
import { isApprovalMode } from "../../core/policy/index.js";
import { createRuntime } from "../../core/runtime/index.js";
import { RuntimeError } from "../../core/runtime/index.js";
import { EXIT_CODES, type CliIo } from "./cli-io.js";
import { createProgressRenderer } from "../../core/loop/index.js";

interface RunOptions {
  readonly cwd?: string;
  readonly mode?: string;
  readonly approval?: string;
  readonly allow?: string[];
  readonly maxTurns?: number;
  readonly contextWindow?: number;
  readonly maxOutputTokens?: number;
  readonly temperature?: number;
  readonly trace?: string;
  readonly resume?: string;
  readonly config?: string;
  readonly json?: boolean;
  /** False with --no-stream: whole messages instead of text as it arrives. */
  readonly stream?: boolean;
}

/** `agentforge run`: one task on a local checkout, or `--resume ID` to continue one. */
export async function runCommand(
  promptArgument: string | undefined,
  raw: Record<string, unknown>,
  io: CliIo,
): Promise<number> {
  const options = raw as RunOptions;
  if (options.approval === undefined && !options.resume && !(io.isTty && !options.json))
    return usage(io, NO_TERMINAL_FOR_APPROVAL);
  const approval = options.approval ?? "on-request";
  if (!isApprovalMode(approval)) return usage(io, `unknown approval mode "${approval}"`);
  const prompt = (promptArgument ?? (options.resume ? "" : await io.readStdin())).trim();
  if (!prompt && !options.resume) return usage(io, "give a prompt as an argument or on stdin");
  let workspaceRoot: string;
  try {
    workspaceRoot = await realpath(options.cwd ?? process.cwd());
  } catch {
    return usage(io, `the folder ${options.cwd ?? "."} does not exist (--cwd)`);
  }
  // Read before any command runs: what sandboxes show read-only of the checkout's git metadata.
  const discovered = await discoverWorkspaceRepository(workspaceRoot);
  const readOnlyPaths = discovered.kind === "repository" ? discovered.repository.sandboxReadOnlyPaths : [];
  // Streaming is for a person watching a terminal; logs and --no-stream get whole messages.
  const isStreaming = io.isTty && !options.json && options.stream !== false;
  const controller = new AbortController();
  const onSignal = (): void => controller.abort(new Error("interrupted"));
  process.once("SIGINT", onSignal);
  try {
    const runtime = await createRuntime({
      env: io.env,
      ...(options.config ? { configPath: options.config } : {}),
      ...(options.contextWindow ? { contextWindow: options.contextWindow } : {}),
      ...(options.maxTurns ? { maxTurns: options.maxTurns } : {}),
      generation: {
        ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens }),
        ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
      },
      stream: isStreaming,
      log: (message: string) => io.stderr(`${message}\n`),
      ...(io.isTty && !options.json && approval !== "never" ? { confirm: askOnTerminal } : {}),
    });
    if (runtime.sandboxKind === "none")
      io.stderr("warning: AGENTFORGE_SANDBOX=none — commands run without the bubblewrap sandbox.\n");
    const renderer = options.json ? undefined : createProgressRenderer(io.stderr, { isStreaming, redact: (text) => runtime.runner.redact(text) });
    const onEvent = renderer?.onEvent;
    let result: RunResult;
    try {
      result = options.resume
        ? await runtime.runner.resume(options.resume, {
            ...(onEvent ? { onEvent } : {}),
            ...(options.maxTurns ? { maxTurns: options.maxTurns } : {}),
            signal: controller.signal,
          })
        : await runtime.runner.run(
            {
              prompt,
              workspaceRoot,
              readOnlyPaths,
              mode: options.mode === "plan" ? "plan" : "build",
              approvalMode: approval,
              allowPrefixes: options.allow ?? [],
              ...(options.maxTurns ? { maxTurns: options.maxTurns } : {}),
              ...(options.trace ? { tracePath: options.trace } : {}),
              signal: controller.signal,
            },
            onEvent ? { onEvent } : {},
          );
    } finally {
      await runtime.close();
    }
    if (options.json) io.stdout(`${JSON.stringify(result, null, 2)}\n`);
    else {
      // Printed once: an answer already streamed whole to the terminal is not repeated.
      if (result.finalAnswer && renderer?.hasShown(result.finalAnswer) !== true)
        io.stdout(`${result.finalAnswer}\n`);
      if (result.errorMessage) io.stderr(`error: ${result.errorMessage}\n`);
      io.stderr(
        `trace: ${result.tracePath ?? "none"} (run id ${result.runId}; resume with --resume ${result.runId})\n`,
      );
      if (isEveryActionRefused(result.actions)) io.stderr(`${everyActionRefusedLine(result)}\n`);
    }
    return exitCodeFor(result);
  } catch (error) {
    if (error instanceof RuntimeError) return usage(io, error.message);
    throw error;
  } finally {
    process.removeListener("SIGINT", onSignal);
  }
}

/** Said when nothing can ask a person: which flags make the run's approvals explicit. */
export const NO_TERMINAL_FOR_APPROVAL =
  'there is no terminal to ask for approval: choose a mode with --approval, e.g. --approval never --allow "npm test" (edits in the checkout, read-only and allowed commands; the rest is refused) or --approval auto (any command, in the sandbox); see agentforge run --help';

export function everyActionRefusedLine(result: RunResult): string {
  return `refused: every action the model tried was refused (${result.actions.refused} of ${result.actions.attempted}); nothing was changed or run. Allow commands with --allow PREFIX or choose a wider --approval mode.`;
}

export function exitCodeFor(result: RunResult): number {
  if (result.exitReason === "final_answer" && isEveryActionRefused(result.actions)) return EXIT_CODES.failure;
  switch (result.exitReason) {
    case "final_answer":
      return EXIT_CODES.ok;
    case "model_error":
      return EXIT_CODES.modelUnavailable;
    case "cancelled":
      return EXIT_CODES.cancelled;
    case "max_turns":
    case "loop_detected":
    case "budget_exhausted":
    case "timeout":
    case "error":
      return EXIT_CODES.failure;
  }
}

function usage(io: CliIo, message: string): number {
  io.stderr(`agentforge run: ${message}\n`);
  return EXIT_CODES.usage;
}

async function askOnTerminal(
  request: { readonly toolName: string; readonly command?: string },
  pending: { readonly reason: string },
): Promise<boolean> {
  const readline = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await readline.question(
      `Allow ${request.command ? `\`${request.command}\`` : request.toolName}? (${pending.reason}) [y/N] `,
    );
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    readline.close();
  }
}
