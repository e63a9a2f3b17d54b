import type { ChatMessage } from "../model/model-types.js";
import { createContextBudget } from "./context-budget.js";
import { ContextError } from "./context-error.js";
import type {
  CompactionUsage,
  ContextEvent,
  ContextManager,
  ContextManagerOptions,
  ContextTokens,
  PrepareInput,
} from "./context-manager-types.js";
import { chooseCompactionCut, compactHistory, dropOldestTurns } from "./compact-history.js";
import { pruneObservations, type RecordedToolResult } from "./prune-observations.js";

const TOKENS_PER_REPLY_PRIMING = 3;

function errorCode(error: unknown): string | undefined {
  if (typeof error === "object" && error !== null && "code" in error && typeof error.code === "string") {
    return error.code;
  }
  return undefined;
}

/**
 * Decides what the model sees on every call. Below the warning line it changes nothing; at the
 * compaction line it prunes old tool outputs, then summarizes older turns, and if summarizing
 * fails it prunes harder and drops the oldest whole turns. Every rewrite cuts only at turn
 * boundaries, so the history handed back is always a valid transcript.
 */
export function createContextManager(options: ContextManagerOptions): ContextManager {
  const budget = createContextBudget({
    windowTokens: options.windowTokens,
    ...(options.reserveOutputTokens === undefined
      ? {}
      : { reserveOutputTokens: options.reserveOutputTokens }),
    ...(options.thresholds === undefined ? {} : { thresholds: options.thresholds }),
  });
  const { counter } = options;
  const keepRecentTurns = options.keepRecentTurns ?? 4;
  const protectRecent = options.protectRecentObservations ?? 3;
  const maxSummaryTokens = options.maxSummaryTokens ?? Math.max(256, Math.floor(budget.inputTokens * 0.15));
  if (!Number.isInteger(keepRecentTurns) || keepRecentTurns < 1) {
    throw new ContextError(
      "CONTEXT_INVALID_OPTIONS",
      `keepRecentTurns must be a positive integer, got ${keepRecentTurns}`,
    );
  }
  if (!Number.isInteger(protectRecent) || protectRecent < 0) {
    throw new ContextError(
      "CONTEXT_INVALID_OPTIONS",
      `protectRecentObservations must be a non-negative integer, got ${protectRecent}`,
    );
  }
  const toolResults = new Map<string, RecordedToolResult>();
  let wasAboveWarn = false;

  // The same text gets the same message object back, so its count is remembered with it.
  let lastSystem: ChatMessage = { role: "system", content: "" };
  let lastLedger: ChatMessage = { role: "user", content: "" };
  function frame(input: Omit<PrepareInput, "signal">): { system: ChatMessage; ledger: ChatMessage } {
    const ledgerText = input.facts.render(options.ledger);
    if (lastSystem.content !== input.systemPrompt)
      lastSystem = { role: "system", content: input.systemPrompt };
    if (lastLedger.content !== ledgerText) lastLedger = { role: "user", content: ledgerText };
    return { system: lastSystem, ledger: lastLedger };
  }

  function measureParts(
    system: ChatMessage,
    ledger: ChatMessage,
    tools: PrepareInput["tools"],
    history: readonly ChatMessage[],
  ): ContextTokens {
    let conversation = 0;
    let observations = 0;
    for (const message of history) {
      if (message.role === "tool") observations += counter.countMessage(message);
      else conversation += counter.countMessage(message);
    }
    const byPart = {
      systemPrompt: counter.countMessage(system) + TOKENS_PER_REPLY_PRIMING,
      toolSchemas: counter.countTools(tools),
      pinnedFacts: counter.countMessage(ledger),
      history: conversation,
      observations,
    };
    const total = byPart.systemPrompt + byPart.toolSchemas + byPart.pinnedFacts + conversation + observations;
    return { total, byPart };
  }

  /** Would summarizing the turns before the kept ones bring the request under the compaction line? */
  function isCompactionWorthIt(history: readonly ChatMessage[], total: number, compactLine: number): boolean {
    const cut = chooseCompactionCut(history, keepRecentTurns);
    if (cut <= 0) return false;
    let olderTokens = 0;
    for (const message of history.slice(0, cut)) olderTokens += counter.countMessage(message);
    const expectedSummary = Math.min(maxSummaryTokens, Math.ceil(olderTokens / 2));
    return total - olderTokens + expectedSummary < compactLine;
  }

  return {
    budget,
    recordPromptTokens(estimatedTokens, reportedTokens) {
      counter.calibrate(estimatedTokens, reportedTokens);
    },
    recordToolResult(callId, result) {
      toolResults.set(callId, {
        ok: result.ok,
        status: result.status,
        ...(result.error ? { errorType: result.error.error_type } : {}),
        artifacts: result.artifacts,
      });
    },
    measure(input) {
      const { system, ledger } = frame(input);
      return measureParts(system, ledger, input.tools, input.history);
    },
    async prepare(input) {
      if (input.signal?.aborted)
        throw new ContextError("CONTEXT_CANCELLED", "context preparation was cancelled");
      const { system, ledger } = frame(input);
      const fixedTokens =
        counter.countMessage(system) + counter.countTools(input.tools) + counter.countMessage(ledger);
      const totalOf = (history: readonly ChatMessage[]): number =>
        fixedTokens + counter.countMessages(history);
      let history: ChatMessage[] = [...input.history];
      // Measured once by part; measured again only if pruning or compaction rewrote the history.
      let measured: ContextTokens | null = measureParts(system, ledger, input.tools, history);
      let total = measured.total;
      const events: ContextEvent[] = [];
      const notes: string[] = [];
      let compactionUsage: CompactionUsage | undefined;
      let compactionFailed: { message: string; code?: string } | undefined;
      // A forced pass treats the request as over the line and aims well below its present size.
      const compactLine =
        input.force === true
          ? Math.min(budget.compactTokens, Math.floor(total * 0.75))
          : budget.compactTokens;
      const warnLine =
        input.force === true ? Math.min(budget.warnTokens, Math.floor(total * 0.6)) : budget.warnTokens;

      if (total >= budget.warnTokens && !wasAboveWarn) {
        events.push({ type: "context-warning", usedTokens: total, windowTokens: budget.windowTokens });
      }

      const prune = async (protect: number, targetTokens: number): Promise<number> => {
        const before = total;
        const pruned = await pruneObservations(history, {
          counter,
          protectRecent: protect,
          targetTokens,
          currentTokens: total,
          toolResults,
          ...(options.scratchDir === undefined ? {} : { scratchDir: options.scratchDir }),
          ...(options.scratchReadable === undefined ? {} : { scratchReadable: options.scratchReadable }),
        });
        notes.push(...pruned.notes);
        if (pruned.prunedCount === 0) return 0;
        history = pruned.history;
        measured = null;
        total = totalOf(history);
        events.push({
          type: "context-pruned",
          prunedCount: pruned.prunedCount,
          tokensBefore: before,
          tokensAfter: total,
        });
        return pruned.prunedCount;
      };

      if (total >= compactLine) {
        // Prune down to the warning line, not just under the compaction line, so it does not recur every turn.
        await prune(protectRecent, warnLine);
      }

      if (total >= compactLine && !isCompactionWorthIt(history, total, compactLine)) {
        // The weight is in the latest turns' outputs, not in older turns: a summary would cost a
        // model call and free little, so the recent outputs (except unseen ones) are stubbed first.
        await prune(0, warnLine);
      }

      if (total >= compactLine) {
        let compacted = false;
        if (options.compactor) {
          const before = total;
          try {
            const result = await compactHistory(history, {
              compactor: options.compactor,
              facts: input.facts,
              counter,
              keepRecentTurns,
              maxSummaryTokens,
              ...(input.signal === undefined ? {} : { signal: input.signal }),
            });
            if (result) {
              history = result.history;
              measured = null;
              total = totalOf(history);
              compacted = true;
              compactionUsage = { ...result.usage, costUsd: result.costUsd };
              events.push({
                type: "context-compacted",
                tokensBefore: before,
                tokensAfter: total,
                summaryTokens: result.summaryTokens,
              });
            }
          } catch (error) {
            if (input.signal?.aborted) {
              throw new ContextError("CONTEXT_CANCELLED", "context compaction was cancelled", {
                cause: error,
              });
            }
            const message = error instanceof Error ? error.message : String(error);
            const code = errorCode(error);
            compactionFailed = code === undefined ? { message } : { message, code };
            notes.push(`compaction failed (${message}); fell back to pruning and dropping the oldest turns`);
          }
        }
        if (!compacted) {
          // Fallback: prune every old output, then drop whole turns from the front.
          await prune(protectRecent, 0);
          // Recent outputs go before whole turns do: a stub still says what happened.
          if (total >= compactLine) await prune(0, warnLine);
          if (total >= compactLine) {
            const before = total;
            const dropped = dropOldestTurns(history, {
              counter,
              keepRecentTurns,
              targetTokens: warnLine,
              otherTokens: fixedTokens,
            });
            if (dropped.droppedCount > 0) {
              history = dropped.history;
              measured = null;
              total = totalOf(history);
              events.push({
                type: "context-pruned",
                prunedCount: dropped.droppedCount,
                tokensBefore: before,
                tokensAfter: total,
              });
            }
          }
        }
      }

      if (total >= compactLine) {
        // The kept turns alone are too big: prune their outputs too, except those not yet seen.
        await prune(0, warnLine);
      }

      wasAboveWarn = total >= budget.warnTokens;
      return {
        messages: [system, ledger, ...history],
        history,
        events,
        ...(compactionUsage === undefined ? {} : { compactionUsage }),
        tokens: measured ?? measureParts(system, ledger, input.tools, history),
        status: total >= budget.hardStopTokens ? "overflow" : "ok",
        notes,
        ...(compactionFailed === undefined ? {} : { compactionFailed }),
      };
    },
  };
}
