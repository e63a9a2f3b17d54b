import type { ReportItem, TurnGroup } from "./report-items.js";

/** The figures of one top-level turn that the charts draw. */
export interface TurnFigures {
  readonly step: number;
  /** Prompt tokens of the turn's last answered model call: what the model had to read. */
  readonly contextTokens: number | null;
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Null when a call of the turn (or, for the running total, of the run so far) had no known price. */
  readonly costUsd: number | null;
  readonly cumulativeCostUsd: number | null;
  /** Context changes in this turn, for markers on the chart. */
  readonly contextChanges: readonly string[];
}

/**
 * Per-turn figures of the main agent (subagents keep their own accounts). Model-call-end events
 * give the numbers; a trace without them falls back to the deltas of cumulative usage-updated events.
 */
export function summarizeTurns(turns: readonly TurnGroup[]): TurnFigures[] {
  const figures: TurnFigures[] = [];
  let previousCumulativeTokens = 0;
  let cumulativeCost: number | null = 0;
  for (const turn of turns) {
    if (turn.step <= 0) continue;
    let contextTokens: number | null = null;
    let inputTokens = 0;
    let outputTokens = 0;
    let costUsd: number | null = 0;
    let hasModelCall = false;
    const contextChanges: string[] = [];
    for (const item of turn.items) {
      if (item.kind === "model-call" && item.answered) {
        hasModelCall = true;
        if (item.inputTokens !== null) contextTokens = item.inputTokens;
        inputTokens += item.inputTokens ?? 0;
        outputTokens += item.outputTokens ?? 0;
        costUsd = costUsd === null || item.costUsd === null ? null : costUsd + item.costUsd;
      } else if (
        item.kind === "notice" &&
        item.eventType.startsWith("context-") &&
        item.eventType !== "context-warning"
      ) {
        contextChanges.push(item.eventType === "context-compacted" ? "compacted" : "pruned");
      }
    }
    let hasUsage = hasModelCall;
    if (!hasModelCall && turn.cumulativeTokens !== null) {
      // Without per-call usage the turn's share is all that can be known; it is counted as output.
      outputTokens = Math.max(0, turn.cumulativeTokens - previousCumulativeTokens);
      hasUsage = outputTokens > 0;
    }
    if (turn.cumulativeTokens !== null) previousCumulativeTokens = turn.cumulativeTokens;
    // A turn with a usage-updated event (it has cumulative tokens) states the running cost itself.
    cumulativeCost =
      turn.cumulativeTokens !== null
        ? turn.cumulativeCostUsd
        : cumulativeCost === null || costUsd === null
          ? null
          : cumulativeCost + costUsd;
    if (!hasUsage && contextChanges.length === 0) continue;
    figures.push({
      step: turn.step,
      contextTokens,
      inputTokens,
      outputTokens,
      costUsd,
      cumulativeCostUsd: cumulativeCost,
      contextChanges,
    });
  }
  return figures;
}

export interface OutcomeCounts {
  modelCalls: number;
  toolOk: number;
  toolErrors: number;
  refusals: number;
  readonly errorTypes: Map<string, number>;
  retries: number;
  fallbacks: number;
  loops: number;
  compactions: number;
  prunes: number;
  subagents: number;
}

/** Counts over the whole run, subagents included. */
export function countOutcomes(turns: readonly TurnGroup[]): OutcomeCounts {
  const counts: OutcomeCounts = {
    modelCalls: 0,
    toolOk: 0,
    toolErrors: 0,
    refusals: 0,
    errorTypes: new Map(),
    retries: 0,
    fallbacks: 0,
    loops: 0,
    compactions: 0,
    prunes: 0,
    subagents: 0,
  };
  const visit = (item: ReportItem): void => {
    switch (item.kind) {
      case "model-call":
        counts.modelCalls += 1;
        return;
      case "tool-call":
        if (item.outcome === "ok") counts.toolOk += 1;
        else if (item.outcome === "refused") counts.refusals += 1;
        else if (item.outcome !== "pending") counts.toolErrors += 1;
        if (item.errorType !== null && item.outcome !== "ok") {
          counts.errorTypes.set(item.errorType, (counts.errorTypes.get(item.errorType) ?? 0) + 1);
        }
        return;
      case "subagent":
        counts.subagents += 1;
        for (const turn of item.turns) turn.items.forEach(visit);
        return;
      case "notice":
        if (item.eventType === "model-retry") counts.retries += 1;
        else if (item.eventType === "model-fallback") counts.fallbacks += 1;
        else if (item.eventType === "loop-detected") counts.loops += 1;
        else if (item.eventType === "context-compacted") counts.compactions += 1;
        else if (item.eventType === "context-pruned") counts.prunes += 1;
        return;
    }
  };
  for (const turn of turns) turn.items.forEach(visit);
  return counts;
}
