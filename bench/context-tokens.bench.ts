import { pathToFileURL } from "node:url";
import type { BenchRow, Benchmark } from "./bench-types.js";
import type { ChatMessage, ToolDefinition } from "../src/core/model/model-types.js";
import { okResult, errorResult, type ToolResult } from "../src/core/tools/tool-result.js";
import { createContextManager } from "../src/core/context/create-context-manager.js";
import { createPinnedFacts, type PinnedFacts } from "../src/core/context/create-pinned-facts.js";
import { createTokenCounter, type TokenCounter } from "../src/core/context/create-token-counter.js";
import type { Compactor } from "../src/core/context/create-model-compactor.js";
import { validateTranscript } from "../src/core/context/validate-transcript.js";

/** A seeded generator so every run produces the same synthetic outputs. */
function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const WORDS = [
  "value",
  "result",
  "config",
  "parse",
  "token",
  "render",
  "index",
  "buffer",
  "handler",
  "options",
  "state",
  "queue",
];

function syntheticSource(random: () => number, lines: number, label: string): string {
  const out: string[] = [];
  for (let line = 1; line <= lines; line += 1) {
    const a = WORDS[Math.floor(random() * WORDS.length)] ?? "x";
    const b = WORDS[Math.floor(random() * WORDS.length)] ?? "y";
    const n = Math.floor(random() * 10_000);
    out.push(
      `${String(line).padStart(4)}  export function ${a}${label}${n}(${b}: number) { return ${b} * ${n} + ${line}; }`,
    );
  }
  return out.join("\n");
}

export const LONG_TASK_GOAL =
  "Make the config parser accept YAML anchors, keep the error messages that name the bad key, and make `npm test` pass. Do not change the public API of src/config/index.ts.";

const TOOLS: ToolDefinition[] = ["read_file", "edit_file", "write_file", "run_shell", "grep"].map((name) => ({
  type: "function",
  function: {
    name,
    description: `The ${name} tool of the synthetic task.`,
    parameters: { type: "object", properties: { path: { type: "string" }, command: { type: "string" } } },
  },
}));

const SYSTEM_PROMPT = `You are a coding agent working in a repository. Use the tools to read, change and test code.\n${"Rules: work in small steps, run the tests after each change, never invent file contents. ".repeat(6)}`;

interface ScriptedCall {
  readonly name: string;
  readonly args: Record<string, string>;
  readonly result: ToolResult;
}

/** Turn `turn` of the scripted task: reads, searches, edits, and test runs with large outputs. */
function scriptTurn(turn: number, random: () => number): ScriptedCall[] {
  const file = `src/config/module-${turn % 9}.ts`;
  switch (turn % 5) {
    case 0:
      return [
        {
          name: "read_file",
          args: { path: file },
          result: okResult(syntheticSource(random, 110, `R${turn}`), {
            summary: `read ${file}`,
            metadata: { kind: "file-read", path: file },
          }),
        },
      ];
    case 1:
      return [
        {
          name: "grep",
          args: { pattern: `anchor${turn % 4}` },
          result: okResult(syntheticSource(random, 60, `G${turn}`), {
            summary: "grep matches",
            metadata: { kind: "grep" },
          }),
        },
        {
          name: "read_file",
          args: { path: `test/config/case-${turn % 6}.test.ts` },
          result: okResult(syntheticSource(random, 50, `T${turn}`), {
            summary: "read test",
            metadata: { kind: "file-read", path: `test/config/case-${turn % 6}.test.ts` },
          }),
        },
      ];
    case 2:
      return turn % 3 === 0
        ? [
            {
              name: "edit_file",
              args: { path: file },
              result: errorResult("EDIT_NO_MATCH", {
                message: `old_string not found in ${file}`,
                recovery_hint: "Re-read the file and copy the exact text.",
                next_actions: [`read_file ${file}`],
                metadata: { path: file },
              }),
            },
          ]
        : [
            {
              name: "edit_file",
              args: { path: file },
              result: okResult(`Edited ${file}: 1 replacement.`, {
                summary: `edited ${file}`,
                artifacts: [file],
                metadata: { kind: "file-edit", path: file },
              }),
            },
          ];
    case 3: {
      const command = turn % 2 === 0 ? "npm test" : `npx jest test/config/case-${turn % 6}.test.ts`;
      const exitCode = turn >= 55 ? 0 : turn % 4 === 3 ? 1 : 0;
      const output = syntheticSource(random, 90, `S${turn}`);
      const metadata = { command, exitCode, timedOut: false };
      return [
        {
          name: "run_shell",
          args: { command },
          result:
            exitCode === 0
              ? okResult(output, { summary: `${command} ok`, metadata })
              : errorResult("COMMAND_FAILED", {
                  message: `${command} exited with 1`,
                  recovery_hint: "Read the failing test output.",
                  next_actions: ["read the failure"],
                  output,
                  metadata,
                }),
        },
      ];
    }
    default: {
      const path = `docs/notes-${turn % 4}.md`;
      return [
        {
          name: "write_file",
          args: { path },
          result: okResult(`Wrote ${path}.`, {
            summary: `wrote ${path}`,
            artifacts: [path],
            metadata: { kind: "file-write", path },
          }),
        },
      ];
    }
  }
}

/** A compactor that never calls a model: a fixed-size summary, so the figures are reproducible. */
export function createFixedSummaryCompactor(
  counter: TokenCounter,
  summaryWords = 250,
): Compactor & { calls: number } {
  const compactor = {
    calls: 0,
    async summarize(messages: readonly ChatMessage[]) {
      compactor.calls += 1;
      const summary = `Compacted ${messages.length} messages. ${"Progress noted on the config parser. ".repeat(Math.ceil(summaryWords / 6))}`;
      const promptTokens = counter.countMessages(messages);
      const completionTokens = counter.count(summary);
      return {
        summary,
        usage: { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens },
        costUsd: 0,
      };
    },
  };
  return compactor;
}

export interface LongTaskStats {
  readonly turns: number;
  readonly promptTokens: number;
  readonly baselineTokens: number;
  readonly maxRequestTokens: number;
  readonly hardStopTokens: number;
  readonly windowTokens: number;
  readonly compactions: number;
  readonly overflowed: boolean;
  readonly allTranscriptsValid: boolean;
  readonly finalRequest: ChatMessage[];
  readonly facts: PinnedFacts;
  readonly missingFacts: string[];
}

/** Every fact the ledger promises to show, looked up in the text of the final request. */
export function findMissingFacts(facts: PinnedFacts, request: readonly ChatMessage[]): string[] {
  const text = request.map((message) => message.content ?? "").join("\n");
  const data = facts.snapshot();
  const expected = [
    data.goal,
    ...data.filesRead,
    ...data.filesChanged,
    ...data.commands.map((fact) => fact.command),
    ...data.failures.map((fact) => `${fact.errorType}: ${fact.message}`),
    ...data.artifacts,
    ...data.plan.map((step) => step.step),
  ];
  return expected.filter((fact) => !text.includes(fact));
}

export async function simulateLongTask(
  options: { turns?: number; windowTokens?: number } = {},
): Promise<LongTaskStats> {
  const turns = options.turns ?? 64;
  const counter = createTokenCounter("gpt-4o");
  const compactor = createFixedSummaryCompactor(counter);
  const manager = createContextManager({ windowTokens: options.windowTokens ?? 16_384, counter, compactor });
  const facts = createPinnedFacts(LONG_TASK_GOAL);
  facts.setPlan([
    "Reproduce the failing anchor test",
    "Teach the parser anchors",
    "Keep key-naming errors",
    "Run the full suite",
  ]);
  const random = createRandom(42);
  let history: ChatMessage[] = [{ role: "user", content: LONG_TASK_GOAL }];
  const fullHistory: ChatMessage[] = [...history];
  const systemMessage: ChatMessage = { role: "system", content: SYSTEM_PROMPT };
  let promptTokens = 0;
  let baselineTokens = 0;
  let maxRequestTokens = 0;
  let allTranscriptsValid = true;
  let overflowed = false;
  let finalRequest: ChatMessage[] = [];

  for (let turn = 0; turn <= turns; turn += 1) {
    const prepared = await manager.prepare({ systemPrompt: SYSTEM_PROMPT, tools: TOOLS, history, facts });
    history = prepared.history;
    finalRequest = prepared.messages;
    // Summarizing calls are prompt tokens too: counting them keeps the comparison honest.
    promptTokens += prepared.tokens.total + (prepared.compactionUsage?.promptTokens ?? 0);
    maxRequestTokens = Math.max(maxRequestTokens, prepared.tokens.total);
    baselineTokens += counter.countMessages([systemMessage, ...fullHistory]) + counter.countTools(TOOLS);
    if (!validateTranscript(prepared.messages).success) allTranscriptsValid = false;
    if (prepared.status === "overflow") overflowed = true;
    if (turn === turns) break;

    const calls = scriptTurn(turn, random);
    const assistant: ChatMessage = {
      role: "assistant",
      content: turn % 4 === 0 ? `Step ${turn}: checking the parser before the next change.` : null,
      tool_calls: calls.map((call, index) => ({
        id: `call_${turn}_${index}`,
        type: "function",
        function: { name: call.name, arguments: JSON.stringify(call.args) },
      })),
    };
    const newMessages: ChatMessage[] = [assistant];
    calls.forEach((call, index) => {
      const id = `call_${turn}_${index}`;
      facts.observeToolCall(call.name, call.args, call.result);
      manager.recordToolResult(id, call.result);
      newMessages.push({
        role: "tool",
        tool_call_id: id,
        content: call.result.output || call.result.summary,
      });
    });
    if (turn === 10) facts.completeStep(0);
    if (turn === 40) facts.completeStep(1);
    history = [...history, ...newMessages];
    fullHistory.push(...newMessages);
  }
  return {
    turns,
    promptTokens,
    baselineTokens,
    maxRequestTokens,
    hardStopTokens: manager.budget.hardStopTokens,
    windowTokens: manager.budget.windowTokens,
    compactions: compactor.calls,
    overflowed,
    allTranscriptsValid,
    finalRequest,
    facts,
    missingFacts: findMissingFacts(facts, finalRequest),
  };
}

/** prepare() on a long history that needs no rewriting: what every ordinary turn costs. */
export async function measurePrepareOnLongHistory(
  messageCount = 1000,
): Promise<{ coldMs: number; warmMs: number }> {
  const counter = createTokenCounter("gpt-4o");
  const manager = createContextManager({ windowTokens: 2_000_000, counter });
  const facts = createPinnedFacts(LONG_TASK_GOAL);
  const random = createRandom(7);
  const history: ChatMessage[] = [{ role: "user", content: LONG_TASK_GOAL }];
  while (history.length < messageCount) {
    const id = `call_${history.length}`;
    history.push({
      role: "assistant",
      content: null,
      tool_calls: [{ id, type: "function", function: { name: "read_file", arguments: '{"path":"a.ts"}' } }],
    });
    history.push({
      role: "tool",
      tool_call_id: id,
      content: syntheticSource(random, 8, `P${history.length}`),
    });
  }
  const input = { systemPrompt: SYSTEM_PROMPT, tools: TOOLS, history, facts };
  let started = performance.now();
  await manager.prepare(input);
  const coldMs = performance.now() - started;
  const samples: number[] = [];
  for (let run = 0; run < 20; run += 1) {
    started = performance.now();
    await manager.prepare(input);
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  return { coldMs, warmMs: samples[Math.floor(samples.length / 2)] ?? 0 };
}

function rowsForTask(stats: LongTaskStats): BenchRow[] {
  const label = `${stats.turns} turns, ${stats.windowTokens}-token window`;
  const ratio = stats.promptTokens / stats.baselineTokens;
  return [
    {
      benchmark: "context-tokens",
      case: `${label}: prompt tokens of all requests (incl. summarizing)`,
      value: stats.promptTokens,
      unit: "tokens",
      baseline: stats.baselineTokens,
      baselineLabel: "append-everything history",
      ratio: Number(ratio.toFixed(4)),
      target: "<= 35% of baseline",
      targetMet: ratio <= 0.35,
    },
    {
      benchmark: "context-tokens",
      case: `${label}: largest request vs hard stop`,
      value: stats.maxRequestTokens,
      unit: "tokens",
      target: `<= ${stats.hardStopTokens} (95% of input capacity), no overflow`,
      targetMet: stats.maxRequestTokens <= stats.hardStopTokens && !stats.overflowed,
    },
    {
      benchmark: "context-tokens",
      case: `${label}: every pinned fact present in the final request`,
      value: stats.missingFacts.length === 0 ? 1 : 0,
      unit: "bool",
      target: "1",
      targetMet: stats.missingFacts.length === 0,
    },
    {
      benchmark: "context-tokens",
      case: `${label}: every request a valid transcript`,
      value: stats.allTranscriptsValid ? 1 : 0,
      unit: "bool",
      target: "1",
      targetMet: stats.allTranscriptsValid,
    },
    { benchmark: "context-tokens", case: `${label}: compactions`, value: stats.compactions, unit: "count" },
  ];
}

export const run: Benchmark = async () => {
  const rows: BenchRow[] = [
    ...rowsForTask(await simulateLongTask({ turns: 64, windowTokens: 16_384 })),
    ...rowsForTask(await simulateLongTask({ turns: 120, windowTokens: 8_192 })),
  ];
  const prepare = await measurePrepareOnLongHistory();
  rows.push(
    {
      benchmark: "context-tokens",
      case: "prepare() on 1,000 messages, first call (counts everything)",
      value: Number(prepare.coldMs.toFixed(2)),
      unit: "ms",
    },
    {
      benchmark: "context-tokens",
      case: "prepare() on 1,000 messages, cached counts (median of 20)",
      value: Number(prepare.warmMs.toFixed(3)),
      unit: "ms",
      target: "<= 5 ms",
      targetMet: prepare.warmMs <= 5,
    },
  );
  return rows;
};

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rows = await run();
  console.table(
    rows.map((row) => ({
      case: row.case,
      value: row.value,
      unit: row.unit,
      ratio: row.ratio,
      target: row.target,
      met: row.targetMet,
    })),
  );
}
