import type { LoopEvent } from "../../../core/loop/index.js";
import type { JobProgress } from "./github-job.js";
import { formatCostUsd, type CostUsd } from "../../../core/model/index.js";

export interface RunProgressTracker {
  readonly onEvent: (event: LoopEvent) => void;
  /** Adds a line of the door's own (checkout done, tests running...). */
  note(text: string): void;
  /** The current text: heading, the latest steps, then elapsed time, tokens and cost. */
  render(): string;
  readonly totals: () => { readonly tokens: number; readonly costUsd: CostUsd; readonly steps: number };
}

const SHOWN_STEPS = 12;
const MAX_ARGUMENT_CHARS = 80;

function describeArguments(name: string, raw: string): string {
  const parsed = parseJson(raw);
  if (typeof parsed !== "object" || parsed === null) return "";
  const record = parsed as Record<string, unknown>;
  const value = record["path"] ?? record["command"] ?? record["pattern"] ?? record["goal"];
  if (typeof value !== "string") return "";
  const flat = value.replace(/\s+/g, " ").replace(/`/g, "'");
  const cut = flat.length > MAX_ARGUMENT_CHARS ? `${flat.slice(0, MAX_ARGUMENT_CHARS)}…` : flat;
  return name.length > 0 ? ` \`${cut}\`` : "";
}

/** Arguments are model output; text that is not JSON is shown by the tool name only. */
function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch (error) {
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
}

function formatElapsed(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  return `${Math.floor(seconds / 60)} m ${seconds % 60} s`;
}

/** "1,234 tokens · $0.0123", or "… · cost unknown" when the model had no known price. */
export function formatUsage(tokens: number, costUsd: CostUsd): string {
  return `${tokens.toLocaleString("en-US")} tokens · ${formatCostUsd(costUsd)}`;
}

/**
 * Turns loop events into the text of the progress comment. Updates go through `progress.update`,
 * which the door throttles; this only decides what the comment says.
 */
export function trackRunProgress(options: {
  readonly heading: string;
  readonly progress: JobProgress;
  readonly now?: () => number;
}): RunProgressTracker {
  const now = options.now ?? Date.now;
  const startedAt = now();
  const steps: string[] = [];
  let tokens = 0;
  let costUsd: CostUsd = 0;
  let stepCount = 0;

  function render(): string {
    const shown = steps.slice(-SHOWN_STEPS);
    const hidden = steps.length - shown.length;
    const lines = [options.heading, ""];
    if (hidden > 0) lines.push(`- …${hidden} earlier step${hidden === 1 ? "" : "s"}`);
    lines.push(...shown.map((step) => `- ${step}`));
    lines.push("", `⏱ ${formatElapsed(now() - startedAt)} · ${formatUsage(tokens, costUsd)}`);
    return lines.join("\n");
  }

  function push(step: string): void {
    steps.push(step);
    void options.progress.update(render());
  }

  return {
    render,
    note: push,
    totals: () => ({ tokens, costUsd, steps: stepCount }),
    onEvent(event) {
      switch (event.type) {
        case "tool-call-start":
          stepCount += 1;
          push(`${event.name}${describeArguments(event.name, event.arguments)}`);
          return;
        case "tool-call-refused":
          push(`${event.name} refused`);
          return;
        case "usage-updated":
          tokens = event.totalTokens;
          costUsd = event.costUsd;
          return;
        case "model-fallback":
          push(`model ${event.from} unavailable, using ${event.to}`);
          return;
        case "subagent-start":
          push(`subagent ${event.name} started`);
          return;
        case "loop-detected":
          push("stopped a repeating step");
          return;
        case "state-changed":
        case "turn-start":
        case "model-call-start":
        case "model-call-end":
        case "model-retry":
        case "text-delta":
        case "tool-call-end":
        case "context-warning":
        case "context-pruned":
        case "context-compacted":
        case "subagent-end":
        case "run-finished":
          return;
      }
    },
  };
}
