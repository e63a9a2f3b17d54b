import type { LoopEvent } from "../../core/loop/index.js";
import { formatCostUsd, type CostUsd } from "../../core/model/index.js";

/**
 * Turns loop events into terminal lines: steps, tokens and cost so far. Plain lines either way; on
 * a TTY the model's text streams as it arrives.
 */
export function createProgressRenderer(write: (text: string) => void, options: { readonly isTty: boolean }) {
  let tokens = 0;
  let cost: CostUsd = 0;
  let streaming = false;
  const endStream = (): void => {
    if (streaming) write("\n");
    streaming = false;
  };
  return (event: LoopEvent): void => {
    switch (event.type) {
      case "text-delta":
        if (options.isTty) {
          streaming = true;
          write(event.text);
        }
        return;
      case "model-call-end":
        endStream();
        if (!options.isTty && event.text) write(`  model: ${oneLine(event.text)}\n`);
        return;
      case "tool-call-start":
        write(`  → ${event.name} ${oneLine(event.arguments, 100)}\n`);
        return;
      case "tool-call-end": {
        const { result } = event;
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
        endStream();
        // Before the first answer there is nothing spent to report.
        write(
          tokens === 0
            ? `turn ${event.turn}\n`
            : `turn ${event.turn} · ${tokens} tokens · ${formatCostUsd(cost)}\n`,
        );
        return;
      case "model-retry":
        write(`  model retry ${event.attempt} in ${event.delayMs} ms: ${event.reason}\n`);
        return;
      case "model-fallback":
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
        endStream();
        write(`finished: ${event.exitReason} · ${tokens} tokens · ${formatCostUsd(cost)}\n`);
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
}

function oneLine(text: string, limit = 200): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > limit ? `${flat.slice(0, limit)}…` : flat;
}
