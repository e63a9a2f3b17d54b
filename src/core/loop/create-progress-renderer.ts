import type { LoopEvent } from "./loop-events.js";
import { formatCostUsd, type CostUsd } from "../model/cost-usd.js";

export interface ProgressRendererOptions {
  /** Stream the model's text as it arrives; otherwise each message is shown whole once it is complete. */
  readonly isStreaming: boolean;
  /**
   * Applied to model and tool text before it is cut to length: a secret cut in half would no longer
   * match the redactor (nor the runner's masks), so redaction comes first.
   */
  readonly redact?: (text: string) => string;
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
 * Turns loop events into progress lines, for the terminal and for a workflow step's log: each
 * turn with the tokens and cost so far, each tool call and its outcome (a refusal with its
 * reason) on a line of its own, and the run's end. Streamed text that a retry
 * or fallback throws away is marked as discarded on its own line, so it never reads as part of
 * the answer that follows; the final answer is left to the door, which prints it once.
 */
export function createProgressRenderer(
  write: (text: string) => void,
  options: ProgressRendererOptions,
): ProgressRenderer {
  const redact = options.redact ?? ((text: string): string => text);
  let tokens = 0;
  let cost: CostUsd = 0;
  let refused = 0;
  /** Text of the current attempt already on screen; reset by every answer, retry and fallback. */
  let streamed = "";
  let shownAnswer: string | null = null;
  /** The call whose line is the last one shown; an outcome under any other line names its tool. */
  let lastStartedCallId: string | null = null;
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
          write(redact(event.text));
        }
        return;
      case "model-call-end": {
        const isFinal = event.toolCalls.length === 0;
        if (options.isStreaming) {
          endLine();
          shownAnswer = isFinal && streamed === (event.text ?? "") ? streamed : null;
          streamed = "";
        } else if (!isFinal && event.text) {
          write(`${indent(redact(event.text).trim())}\n`);
        }
        return;
      }
      case "tool-call-start":
        lastStartedCallId = event.callId;
        write(`  → ${event.name} ${oneLine(redact(event.arguments), 100)}\n`);
        return;
      case "tool-call-end": {
        const { result } = event;
        if (result.status === "refused" || result.error?.error_type === "SANDBOX_UNAVAILABLE") refused += 1;
        const detail = result.ok ? result.summary : (result.error?.message ?? result.summary);
        // Calls of one answer run together: their outcomes follow all their call lines.
        const label = event.callId === lastStartedCallId ? "" : `${event.name} `;
        lastStartedCallId = null;
        write(
          `    ${label}${result.ok ? "ok" : `${result.status} ${result.error?.error_type ?? ""}`}: ${oneLine(redact(detail), 140)}\n`,
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
        write(`  model retry ${event.attempt} in ${event.delayMs} ms: ${redact(event.reason)}\n`);
        return;
      case "model-fallback":
        discardStreamed();
        write(`  model fallback ${event.from} → ${event.to}: ${redact(event.reason)}\n`);
        return;
      case "loop-detected":
        write(`  loop detected: ${redact(event.description)}\n`);
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
