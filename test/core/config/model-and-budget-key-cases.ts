import type { MockStep } from "../../../src/mock-model/mock-script.js";
import type { OperatorKeyCase } from "./operator-key-case.js";
import { runWithOperatorConfig, toolMessagesSeen } from "./run-with-operator-config.js";

const done: MockStep = { type: "text", text: "done" };
const usage = { prompt_tokens: 100, completion_tokens: 10 };
/** A model that looks for a different file at every turn and never finishes on its own. */
const searching = (extra: Partial<MockStep> = {}): MockStep[] =>
  Array.from({ length: 6 }, (_, index) => ({
    type: "tool_calls" as const,
    calls: [{ name: "glob", arguments: { pattern: `file-${index}-*.txt` } }],
    usage,
    ...extra,
  })) as MockStep[];

async function costInMicroDollars(config: Record<string, unknown>): Promise<number> {
  const run = await runWithOperatorConfig({
    config,
    steps: [{ ...done, usage: { ...usage, cached_tokens: 50 } }],
  });
  return Math.round((run.result.costUsd ?? Number.NaN) * 1_000_000);
}

async function howTheRunEnded(config: Record<string, unknown>, steps: readonly MockStep[] = searching()) {
  const { result } = await runWithOperatorConfig({ config, steps });
  return { exitReason: result.exitReason, turns: result.turns };
}

/** A first answer that takes 600 ms, then a quick one: a short timeout makes the retry take it. */
async function whichAnswerArrived(config: Record<string, unknown>): Promise<string | null> {
  const { result } = await runWithOperatorConfig({
    config,
    steps: [
      { type: "text", text: "slow answer", delay_ms: 600 },
      { type: "text", text: "quick answer" },
    ],
  });
  return result.finalAnswer;
}

const priced = (price: Record<string, number>) => ({ prices: { "primary-model": price } });

/** What every chat request asked for under one generation setting (absent when not sent). */
async function generationSent(config: Record<string, unknown>, field: string): Promise<unknown[]> {
  const run = await runWithOperatorConfig({ config, steps: [done] });
  return run.requests.map(
    (request) => (request.body as Record<string, unknown> | undefined)?.[field] ?? "absent",
  );
}

export const modelAndBudgetKeyCases: readonly OperatorKeyCase[] = [
  {
    keys: ["max_output_tokens"],
    title: "max_output_tokens caps every answer (the default is an eighth of the window)",
    baseline: { context_window: 16_000 },
    changed: { context_window: 16_000, max_output_tokens: 300 },
    observe: (config) => generationSent(config, "max_tokens"),
    expected: { baseline: [2_000], changed: [300] },
  },
  {
    keys: ["temperature"],
    title: "temperature is sent with every request, and left to the server when unset",
    baseline: {},
    changed: { temperature: 0.2 },
    observe: (config) => generationSent(config, "temperature"),
    expected: { baseline: ["absent"], changed: [0.2] },
  },
  {
    keys: ["model"],
    title: "model names the model every request asks for",
    baseline: {},
    changed: { model: "configured-model" },
    observe: async (config) => {
      const run = await runWithOperatorConfig({ config, steps: [done] });
      return run.requests.map((request) => request.model);
    },
    expected: { baseline: ["primary-model"], changed: ["configured-model"] },
  },
  {
    keys: ["allowed_models"],
    title: "allowed_models lets a task choose another model, which every request then asks for",
    baseline: {},
    changed: { allowed_models: ["chosen-model"] },
    observe: async (config) => {
      try {
        const run = await runWithOperatorConfig({ config, steps: [done], input: { model: "chosen-model" } });
        return { models: run.requests.map((request) => request.model), answeredBy: run.result.model };
      } catch (error) {
        return { refused: (error as { code?: string }).code, message: (error as Error).message };
      }
    },
    expected: {
      baseline: {
        refused: "MODEL_NOT_ALLOWED",
        message: "`chosen-model` is not one of the models this installation allows: primary-model.",
      },
      changed: { models: ["chosen-model"], answeredBy: "chosen-model" },
    },
  },
  {
    keys: ["fallback_models"],
    title: "fallback_models answers when the first model is not found",
    baseline: {},
    changed: { fallback_models: ["backup-model"] },
    observe: async (config) => {
      const { result } = await runWithOperatorConfig({
        config,
        steps: [
          { type: "error", status: 404, model: "primary-model" },
          { type: "text", text: "the backup answered", model: "backup-model" },
        ],
      });
      return result.finalAnswer;
    },
    expected: { baseline: null, changed: "the backup answered" },
  },
  {
    keys: ["prices", "prices.*.input_per_million"],
    title: "prices.input_per_million charges prompt tokens",
    baseline: priced({ input_per_million: 0, output_per_million: 0 }),
    changed: priced({ input_per_million: 10, output_per_million: 0 }),
    observe: costInMicroDollars,
    expected: { baseline: 0, changed: 1000 },
  },
  {
    keys: ["prices.*.output_per_million"],
    title: "prices.output_per_million charges completion tokens",
    baseline: priced({ input_per_million: 0, output_per_million: 0 }),
    changed: priced({ input_per_million: 0, output_per_million: 100 }),
    observe: costInMicroDollars,
    expected: { baseline: 0, changed: 1000 },
  },
  {
    keys: ["prices.*.cached_input_per_million"],
    title: "prices.cached_input_per_million charges cached prompt tokens at their own price",
    baseline: priced({ input_per_million: 10, output_per_million: 0 }),
    changed: priced({ input_per_million: 10, output_per_million: 0, cached_input_per_million: 2 }),
    observe: costInMicroDollars,
    expected: { baseline: 1000, changed: 600 },
  },
  {
    keys: ["context_window"],
    title: "context_window sizes how much of a tool's output the model sees",
    baseline: {},
    changed: { context_window: 1_000 },
    observe: async (config) => {
      const run = await runWithOperatorConfig({
        config,
        files: { "big.txt": "0123456789\n".repeat(1_000) },
        steps: [{ type: "tool_calls", calls: [{ name: "read_file", arguments: { path: "big.txt" } }] }, done],
      });
      return (toolMessagesSeen(run)[0]?.length ?? 0) > 10_000;
    },
    expected: { baseline: true, changed: false },
  },
  {
    keys: ["budgets", "budgets.max_turns"],
    title: "budgets.max_turns ends the run after that many turns",
    baseline: { budgets: { max_turns: 3 } },
    changed: { budgets: { max_turns: 1 } },
    observe: (config) => howTheRunEnded(config),
    expected: {
      baseline: { exitReason: "max_turns", turns: 3 },
      changed: { exitReason: "max_turns", turns: 1 },
    },
  },
  {
    keys: ["budgets.max_total_tokens"],
    title: "budgets.max_total_tokens ends the run once the tokens are spent",
    baseline: { budgets: { max_turns: 3 } },
    changed: { budgets: { max_turns: 3, max_total_tokens: 150 } },
    observe: (config) => howTheRunEnded(config),
    expected: {
      baseline: { exitReason: "max_turns", turns: 3 },
      changed: { exitReason: "budget_exhausted", turns: 2 },
    },
  },
  {
    keys: ["budgets.max_cost_usd"],
    title: "budgets.max_cost_usd ends the run once the money is spent",
    baseline: { budgets: { max_turns: 3 }, ...priced({ input_per_million: 10_000, output_per_million: 0 }) },
    changed: {
      budgets: { max_turns: 3, max_cost_usd: 1.5 },
      ...priced({ input_per_million: 10_000, output_per_million: 0 }),
    },
    observe: (config) => howTheRunEnded(config),
    expected: {
      baseline: { exitReason: "max_turns", turns: 3 },
      changed: { exitReason: "budget_exhausted", turns: 2 },
    },
  },
  {
    keys: ["budgets.max_wall_clock_ms"],
    title: "budgets.max_wall_clock_ms ends the run once its time is up",
    baseline: { budgets: { max_turns: 2 } },
    changed: { budgets: { max_turns: 2, max_wall_clock_ms: 20 } },
    observe: (config) => howTheRunEnded(config, searching({ delay_ms: 40 })),
    expected: {
      baseline: { exitReason: "max_turns", turns: 2 },
      changed: { exitReason: "timeout", turns: 1 },
    },
  },
  {
    keys: ["timeouts", "timeouts.inference_ms"],
    title: "timeouts.inference_ms gives up on a slow answer and tries again",
    baseline: {},
    changed: { timeouts: { inference_ms: 200 } },
    observe: whichAnswerArrived,
    expected: { baseline: "slow answer", changed: "quick answer" },
  },
  {
    keys: ["timeouts.http_ms"],
    title: "timeouts.http_ms gives up on a slow response and tries again",
    baseline: {},
    changed: { timeouts: { http_ms: 200 } },
    observe: whichAnswerArrived,
    expected: { baseline: "slow answer", changed: "quick answer" },
  },
];
