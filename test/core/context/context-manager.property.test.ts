import { describe, it, expect } from "@jest/globals";
import fc from "fast-check";
import { createContextManager } from "../../../src/core/context/create-context-manager.js";
import { createPinnedFacts } from "../../../src/core/context/create-pinned-facts.js";
import { createTokenCounter } from "../../../src/core/context/create-token-counter.js";
import type { Compactor } from "../../../src/core/context/create-model-compactor.js";
import { validateTranscript } from "../../../src/core/context/validate-transcript.js";
import { errorResult, okResult } from "../../../src/core/tools/tool-result.js";
import type { ChatMessage } from "../../../src/core/model/model-types.js";
import { filler } from "./transcript-fixtures.js";

const counter = createTokenCounter("gpt-4o");
const GOAL = "Keep this goal visible: rename `parseConfig` to `loadConfig` everywhere, tests green.";

type Operation =
  | {
      readonly kind: "calls";
      readonly sizes: readonly number[];
      readonly failing: readonly boolean[];
      readonly reverse: boolean;
    }
  | { readonly kind: "text"; readonly size: number }
  | { readonly kind: "user"; readonly size: number }
  | { readonly kind: "prepare" };

const operation: fc.Arbitrary<Operation> = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant("calls" as const),
      sizes: fc.array(fc.integer({ min: 1, max: 900 }), { minLength: 1, maxLength: 3 }),
      failing: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
      reverse: fc.boolean(),
    }),
    weight: 5,
  },
  {
    arbitrary: fc.record({ kind: fc.constant("text" as const), size: fc.integer({ min: 1, max: 300 }) }),
    weight: 1,
  },
  {
    arbitrary: fc.record({ kind: fc.constant("user" as const), size: fc.integer({ min: 1, max: 200 }) }),
    weight: 1,
  },
  { arbitrary: fc.constant({ kind: "prepare" as const }), weight: 4 },
);

const scenario = fc.record({
  windowTokens: fc.integer({ min: 2_500, max: 9_000 }),
  keepRecentTurns: fc.integer({ min: 1, max: 4 }),
  protectRecentObservations: fc.integer({ min: 0, max: 4 }),
  /** Whether each successive compaction attempt throws. */
  compactorFailures: fc.array(fc.boolean(), { minLength: 1, maxLength: 20 }),
  summaryWords: fc.integer({ min: 1, max: 400 }),
  operations: fc.array(operation, { minLength: 5, maxLength: 70 }),
});

function expectValid(messages: readonly ChatMessage[]): void {
  const verdict = validateTranscript(messages);
  if (!verdict.success) throw new Error(`invalid transcript: ${verdict.error}`);
}

describe("context manager properties", () => {
  it("keeps the transcript provider-valid and the goal pinned through random calls, pruning and compaction", async () => {
    const seen = { pruned: 0, compacted: 0, compactionFailed: 0, overflow: 0 };
    await fc.assert(
      fc.asyncProperty(scenario, async (input) => {
        let attempt = 0;
        const compactor: Compactor = {
          async summarize(messages) {
            const fails = input.compactorFailures[attempt % input.compactorFailures.length] === true;
            attempt += 1;
            if (fails) throw new Error("summarizer unavailable");
            expectValid(
              messages.length > 0 && messages[0]?.role === "user"
                ? messages
                : [{ role: "user", content: "x" }, ...messages],
            );
            const summary = filler(input.summaryWords, `summary${attempt}`);
            return { summary, usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 }, costUsd: 0 };
          },
        };
        const manager = createContextManager({
          windowTokens: input.windowTokens,
          reserveOutputTokens: 0,
          counter,
          compactor,
          keepRecentTurns: input.keepRecentTurns,
          protectRecentObservations: input.protectRecentObservations,
        });
        const facts = createPinnedFacts(GOAL);
        let history: ChatMessage[] = [{ role: "user", content: GOAL }];
        let nextId = 0;

        for (const op of input.operations) {
          switch (op.kind) {
            case "calls": {
              const ids = op.sizes.map(() => `call_${nextId++}`);
              history.push({
                role: "assistant",
                content: null,
                tool_calls: ids.map((id, index) => ({
                  id,
                  type: "function",
                  function: { name: "read_file", arguments: JSON.stringify({ path: `f${index}.ts` }) },
                })),
              });
              const answers = ids.map((id, index): ChatMessage => {
                const failing = op.failing[index] === true;
                const result = failing
                  ? errorResult("FILE_NOT_FOUND", {
                      message: `f${index}.ts missing`,
                      recovery_hint: "list",
                      next_actions: ["list_dir"],
                    })
                  : okResult("ok", {
                      summary: "read",
                      metadata: { kind: "file-read", path: `f${index}.ts` },
                    });
                facts.observeToolCall("read_file", { path: `f${index}.ts` }, result);
                manager.recordToolResult(id, result);
                return { role: "tool", tool_call_id: id, content: filler(op.sizes[index] ?? 1, id) };
              });
              history.push(...(op.reverse ? answers.reverse() : answers));
              break;
            }
            case "text":
              history.push({ role: "assistant", content: filler(op.size, `t${nextId++}`) });
              break;
            case "user":
              history.push({ role: "user", content: filler(op.size, `u${nextId++}`) });
              break;
            case "prepare": {
              const lastAssistant = history.findLast((message) => message.role === "assistant");
              const lastAssistantIndex = history.lastIndexOf(lastAssistant as ChatMessage);
              const unseen = history
                .slice(lastAssistantIndex + 1)
                .filter((message) => message.role === "tool");
              const result = await manager.prepare({
                systemPrompt: "You are an agent.",
                tools: [],
                history,
                facts,
              });
              expectValid(result.messages);
              expectValid(result.history);
              expect(result.messages[1]?.content).toContain(GOAL);
              expect(result.messages.slice(2)).toEqual(result.history);
              // The latest turn and the outputs the model has not seen yet survive untouched.
              if (lastAssistant) expect(result.history).toContain(lastAssistant);
              for (const message of unseen) expect(result.history).toContain(message);
              if (result.status === "ok")
                expect(result.tokens.total).toBeLessThan(manager.budget.hardStopTokens);
              else expect(result.tokens.total).toBeGreaterThanOrEqual(manager.budget.hardStopTokens);
              expect(result.tokens.total).toBe(counter.countMessages(result.messages));
              history = result.history;
              if (result.events.some((event) => event.type === "context-pruned")) seen.pruned += 1;
              if (result.events.some((event) => event.type === "context-compacted")) seen.compacted += 1;
              if (result.compactionFailed) seen.compactionFailed += 1;
              if (result.status === "overflow") seen.overflow += 1;
              break;
            }
          }
          expectValid(history);
        }
      }),
      { numRuns: Number(process.env.CONTEXT_PROPERTY_RUNS ?? 120) },
    );
    // The generators must actually reach every path, or the property proves little.
    expect(seen.pruned).toBeGreaterThan(0);
    expect(seen.compacted).toBeGreaterThan(0);
    expect(seen.compactionFailed).toBeGreaterThan(0);
  });
});
