import type { LoopEvent } from "../../core/loop/index.js";
import { formatCostUsd, type CostUsd } from "../../core/model/index.js";

export interface ProgressRendererOptions {
  /** Stream the model's text as it arrives; otherwise each message is shown whole once it is complete. */
  readonly isStreaming: boolean;
}

export interface ProgressRenderer {
  readonly onEvent: (event: LoopEvent) => void;
  /**
   * True when the person has already read this answer in the progress output (it was streamed
   * whole), so the door does not print it a second time.
   */
  readonly hasShown: (answer: string) => boolean;
}

/** Put after text that was on screen but is not part of any answer: the model is asked again. */
export const DISCARDED_MARK = "  ✗ the text above was cut off and is discarded";

/**
 * Turns loop events into terminal lines: steps, tokens and cost so far. Streamed text that a retry
 * or fallback throws away is marked as discarded on its own line, so it never reads as part of
 * the answer that follows; the final answer is left to the door, which prints it once.
 */
export function createProgressRenderer(
  write: (text: string) => void,
  options: ProgressRendererOptions,
): ProgressRenderer {
  let tokens = 0;
  let cost: CostUsd = 0;
  let refused = 0;
  /** Text of the current attempt already on screen; reset by every answer, retry and fallback. */
  let streamed = "";
  let shownAnswer: string | null = null;
  const endLine = (): void => {
    if (streamed !== "" && !streamed.endsWith("\n")) write("\n");
  };
  const discardStreamed = (): void => {
    if (streamed === "") return;
    endLine();
    write(`${DISCARDED_MARK}\n`);
    streamed = "";
  };
  const onEvent = (event: LoopEvent): void => {
    switch (event.type) {
      case "text-delta":
        if (options.isStreaming) {
          streamed += event.text;
          write(event.text);
        }
        return;
      case "model-call-end": {
        const isFinal = event.toolCalls.length === 0;
        if (options.isStreaming) {
          endLine();
          shownAnswer = isFinal && streamed === (event.text ?? "") ? streamed : null;
          streamed = "";
        } else if (!isFinal && event.text) {
          write(`${indent(event.text.trim())}\n`);
        }
        return;
      }
      case "tool-call-start":
        write(`  → ${event.name} ${oneLine(event.arguments, 100)}\n`);
        return;
      case "tool-call-end": {
        const { result } = event;
        if (result.status === "refused" || result.error?.error_type === "SANDBOX_UNAVAILABLE") refused += 1;
        const detail = result.ok ? result.summary : (result.error?.message ?? result.summary);
        write(
          `    ${result.ok ? "ok" : `${result.status} ${result.error?.error_type ?? ""}`}: ${oneLine(detail, 140)}\n`,
        );
        return;
      }
      case "usage-updated":
        tokens = event.totalTokens;
        cost = event.costUsd;
        return;
      case "turn-start":
        // Before the first answer there is nothing spent to report.
        write(
          tokens === 0
            ? `turn ${event.turn}\n`
            : `turn ${event.turn} · ${tokens} tokens · ${formatCostUsd(cost)}\n`,
        );
        return;
      case "model-retry":
        discardStreamed();
        write(`  model retry ${event.attempt} in ${event.delayMs} ms: ${event.reason}\n`);
        return;
      case "model-fallback":
        discardStreamed();
        write(`  model fallback ${event.from} → ${event.to}: ${event.reason}\n`);
        return;
      case "loop-detected":
        write(`  loop detected: ${event.description}\n`);
        return;
      case "context-compacted":
        write(`  context compacted: ${event.tokensBefore} → ${event.tokensAfter} tokens\n`);
        return;
      case "context-pruned":
        write(`  context pruned: ${event.prunedCount} old outputs\n`);
        return;
      case "run-finished":
        // A run stopped mid-stream (cancelled, timed out) leaves text that is no answer.
        discardStreamed();
        write(
          `finished: ${event.exitReason}${refused > 0 ? ` · ${refused} refused` : ""} · ${tokens} tokens · ${formatCostUsd(cost)}\n`,
        );
        return;
      case "state-changed":
      case "model-call-start":
      case "tool-call-refused":
      case "context-warning":
      case "subagent-start":
      case "subagent-end":
        return;
    }
  };
  return { onEvent, hasShown: (answer) => shownAnswer !== null && shownAnswer.trim() === answer.trim() };
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((line) => `  │ ${line}`)
    .join("\n");
}

function oneLine(text: string, limit = 200): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > limit ? `${flat.slice(0, limit)}…` : flat;
}
