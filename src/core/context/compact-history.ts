import type { ChatMessage, TokenUsage } from "../model/model-types.js";
import type { Compactor } from "./create-model-compactor.js";
import type { PinnedFactsLedger } from "./create-pinned-facts.js";
import type { TokenCounter } from "./create-token-counter.js";
import { findRecentTurnsStart, isTurnBoundary } from "./transcript-turns.js";

export const SUMMARY_PREFIX =
  "Summary of earlier work (older turns were compacted by the harness; the pinned facts are exact):";
export const DROPPED_PREFIX = "[Earlier turns were dropped to fit the context window";

export interface CompactHistoryOptions {
  readonly compactor: Compactor;
  readonly facts: PinnedFactsLedger;
  readonly counter: TokenCounter;
  readonly keepRecentTurns: number;
  /** A summary longer than this is clipped, so a runaway summarizer cannot refill the window. */
  readonly maxSummaryTokens: number;
  readonly signal?: AbortSignal;
}

export interface CompactHistoryResult {
  readonly history: ChatMessage[];
  readonly summaryTokens: number;
  readonly usage: TokenUsage;
  readonly costUsd: number;
}

/** Where to cut: keep the latest turns, or fewer when that leaves nothing older to summarize. */
export function chooseCompactionCut(history: readonly ChatMessage[], keepRecentTurns: number): number {
  for (let keep = Math.max(1, keepRecentTurns); keep >= 1; keep -= 1) {
    const cut = findRecentTurnsStart(history, keep);
    if (cut > 0 && isTurnBoundary(history, cut)) {
      const older = history.slice(0, cut);
      // Re-summarizing a lone summary would only shorten it; it needs new turns to be worth a call.
      const onlySummary =
        older.length === 1 && older[0]?.role === "user" && older[0].content.startsWith(SUMMARY_PREFIX);
      if (!onlySummary) return cut;
    }
  }
  return 0;
}

function clipToTokens(text: string, maxTokens: number, counter: TokenCounter): string {
  let clipped = text;
  let tokens = counter.count(clipped);
  while (tokens > maxTokens && clipped.length > 0) {
    const keepChars = Math.max(0, Math.floor((clipped.length * maxTokens) / tokens) - 16);
    clipped = `${clipped.slice(0, keepChars)}…`;
    tokens = counter.count(clipped);
  }
  return clipped;
}

/** Summarizes everything before the cut into one user message; null when nothing can be compacted. */
export async function compactHistory(
  history: readonly ChatMessage[],
  options: CompactHistoryOptions,
): Promise<CompactHistoryResult | null> {
  const cut = chooseCompactionCut(history, options.keepRecentTurns);
  if (cut <= 0) return null;
  const older = history.slice(0, cut);
  const outcome = await options.compactor.summarize(older, options.facts, options.signal);
  const summary = clipToTokens(outcome.summary, options.maxSummaryTokens, options.counter);
  const summaryMessage: ChatMessage = { role: "user", content: `${SUMMARY_PREFIX}\n${summary}` };
  return {
    history: [summaryMessage, ...history.slice(cut)],
    summaryTokens: options.counter.countMessage(summaryMessage),
    usage: outcome.usage,
    costUsd: outcome.costUsd,
  };
}

export interface DropOldestTurnsResult {
  readonly history: ChatMessage[];
  readonly droppedCount: number;
}

/**
 * The fallback when no summary can be had: whole turns are dropped from the front, oldest first,
 * until the history fits `targetTokens`, never past the latest `keepRecentTurns` turns. A note
 * in their place says so; the pinned facts still hold what those turns did.
 */
export function dropOldestTurns(
  history: readonly ChatMessage[],
  options: {
    readonly counter: TokenCounter;
    readonly keepRecentTurns: number;
    readonly targetTokens: number;
    readonly otherTokens: number;
  },
): DropOldestTurnsResult {
  const limit = findRecentTurnsStart(history, Math.max(1, options.keepRecentTurns));
  const note = (count: number): ChatMessage => ({
    role: "user",
    content: `${DROPPED_PREFIX} (${count} messages); the pinned facts above record what they did. Re-read files before relying on earlier content.]`,
  });
  // Suffix sums keep this linear: the cost of keeping history[cut..] is read, not recounted.
  const suffix = new Array<number>(history.length + 1).fill(0);
  for (let index = history.length - 1; index >= 0; index -= 1) {
    const message = history[index];
    suffix[index] = (suffix[index + 1] ?? 0) + (message ? options.counter.countMessage(message) : 0);
  }
  let best = 0;
  for (let cut = 1; cut <= limit; cut += 1) {
    if (!isTurnBoundary(history, cut)) continue;
    best = cut;
    const total = options.otherTokens + 3 + options.counter.countMessage(note(cut)) + (suffix[cut] ?? 0);
    if (total <= options.targetTokens) break;
  }
  if (best === 0) return { history: [...history], droppedCount: 0 };
  return { history: [note(best), ...history.slice(best)], droppedCount: best };
}
