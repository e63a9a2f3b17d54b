import type { OperatorConfig } from "./operator-config-schema.js";

/**
 * Every limit a run works under, built once from the operator config (and a door's overrides such
 * as `--max-turns`), then handed whole to the runner: the loop's budgets, the registry's tool
 * timeout, the sandbox's command timeout and the model client's timeouts all read it.
 */
export interface RunLimits {
  readonly maxTurns: number;
  readonly maxTotalTokens?: number;
  readonly maxCostUsd?: number;
  readonly maxWallClockMs?: number;
  /** A tool call without a timeout of its own (file tools) and a call to an MCP server; a subagent has its own. */
  readonly toolTimeoutMs: number;
  /** A shell command, a setup or test command and an after-tool hook. */
  readonly commandTimeoutMs: number;
  /** One model call, from request to last token. */
  readonly inferenceTimeoutMs: number;
  /** One HTTP exchange with the model endpoint. */
  readonly httpTimeoutMs: number;
}

export const DEFAULT_RUN_LIMITS: RunLimits = {
  maxTurns: 40,
  toolTimeoutMs: 120_000,
  commandTimeoutMs: 120_000,
  inferenceTimeoutMs: 300_000,
  httpTimeoutMs: 120_000,
};

/** The defaults with some limits changed (tests, benchmarks, a door's own caps). */
export function runLimits(changes: Partial<RunLimits> = {}): RunLimits {
  return { ...DEFAULT_RUN_LIMITS, ...changes };
}

export function readRunLimits(
  config: OperatorConfig,
  overrides: { readonly maxTurns?: number } = {},
): RunLimits {
  const { budgets, timeouts, sandbox } = config;
  return {
    maxTurns: overrides.maxTurns ?? budgets.max_turns,
    ...(budgets.max_total_tokens === undefined ? {} : { maxTotalTokens: budgets.max_total_tokens }),
    ...(budgets.max_cost_usd === undefined ? {} : { maxCostUsd: budgets.max_cost_usd }),
    ...(budgets.max_wall_clock_ms === undefined ? {} : { maxWallClockMs: budgets.max_wall_clock_ms }),
    toolTimeoutMs: timeouts.tool_ms,
    commandTimeoutMs: sandbox.command_timeout_ms,
    inferenceTimeoutMs: timeouts.inference_ms,
    httpTimeoutMs: timeouts.http_ms,
  };
}
