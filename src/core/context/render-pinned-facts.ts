import type { PinnedFactsData } from "./pinned-facts-data.js";

export interface RenderPinnedFactsOptions {
  readonly maxFilesRead?: number;
  readonly maxFilesChanged?: number;
  readonly maxCommands?: number;
  readonly maxFailures?: number;
  readonly maxArtifacts?: number;
  readonly maxPlanSteps?: number;
  /** Longest command, path or error message shown, in characters. The goal is never shortened. */
  readonly maxLineLength?: number;
}

const DEFAULTS: Required<RenderPinnedFactsOptions> = {
  maxFilesRead: 25,
  maxFilesChanged: 40,
  maxCommands: 12,
  maxFailures: 8,
  maxArtifacts: 20,
  maxPlanSteps: 30,
  maxLineLength: 200,
};

export const LEDGER_HEADER =
  "[Pinned facts, recorded by the harness from what actually happened; they survive compaction]";

function clip(text: string, maxLength: number): string {
  const oneLine = text.replace(/\s+/g, " ").trim();
  return oneLine.length <= maxLength ? oneLine : `${oneLine.slice(0, maxLength - 1)}…`;
}

/** The most recent `limit` items (lists are kept oldest first), and how many were left out. */
function latest<T>(items: readonly T[], limit: number): { shown: readonly T[]; hidden: number } {
  const shown = items.slice(Math.max(0, items.length - limit));
  return { shown, hidden: items.length - shown.length };
}

function renderPaths(label: string, paths: readonly string[], limit: number, lineLength: number): string[] {
  if (paths.length === 0) return [];
  const { shown, hidden } = latest(paths, limit);
  const more = hidden > 0 ? ` (+${hidden} earlier)` : "";
  return [`${label} (${paths.length}): ${shown.map((path) => clip(path, lineLength)).join(", ")}${more}`];
}

/** A compact, bounded ledger: its size depends on the caps and the goal, not on the run's length. */
export function renderPinnedFacts(data: PinnedFactsData, options: RenderPinnedFactsOptions = {}): string {
  const limits = { ...DEFAULTS, ...options };
  const lines: string[] = [LEDGER_HEADER, "Goal (the user's words, verbatim):", data.goal];

  if (data.plan.length > 0) {
    const done = data.plan.filter((step) => step.done).length;
    lines.push(`Plan: ${done} of ${data.plan.length} steps done`);
    const { shown, hidden } = latest(data.plan, limits.maxPlanSteps);
    if (hidden > 0) lines.push(`  (${hidden} earlier steps not shown)`);
    const offset = data.plan.length - shown.length;
    shown.forEach((step, index) => {
      lines.push(
        `  [${step.done ? "x" : " "}] ${offset + index + 1}. ${clip(step.step, limits.maxLineLength)}`,
      );
    });
  }

  lines.push(
    ...renderPaths("Files changed", data.filesChanged, limits.maxFilesChanged, limits.maxLineLength),
  );
  lines.push(...renderPaths("Files read", data.filesRead, limits.maxFilesRead, limits.maxLineLength));

  const totalRuns = data.commands.reduce((sum, fact) => sum + fact.runs, 0) + data.olderCommands.runs;
  if (totalRuns > 0) {
    const distinct = data.commands.length + data.olderCommands.distinct;
    lines.push(`Commands run (${totalRuns} runs, ${distinct} distinct; latest outcome shown):`);
    const { shown, hidden } = latest(data.commands, limits.maxCommands);
    const older = {
      distinct: data.olderCommands.distinct + hidden,
      runs:
        data.olderCommands.runs + data.commands.slice(0, hidden).reduce((sum, fact) => sum + fact.runs, 0),
      failures:
        data.olderCommands.failures +
        data.commands.slice(0, hidden).reduce((sum, fact) => sum + fact.failures, 0),
    };
    if (older.distinct > 0) {
      lines.push(`  (+${older.distinct} earlier commands: ${older.runs} runs, ${older.failures} failed)`);
    }
    for (const fact of shown) {
      const outcome = fact.lastTimedOut
        ? "timed out"
        : `exit ${fact.lastExitCode === null ? "none" : fact.lastExitCode} (${fact.lastOk ? "ok" : "failed"})`;
      const runs = fact.runs > 1 ? `, ${fact.runs} runs, ${fact.failures} failed` : "";
      lines.push(`  - \`${clip(fact.command, limits.maxLineLength)}\` → ${outcome}${runs}`);
    }
  }

  if (data.failures.length > 0 || data.olderFailures > 0) {
    lines.push("Failed attempts (do not repeat them unchanged):");
    const { shown, hidden } = latest(data.failures, limits.maxFailures);
    const olderCount =
      data.olderFailures + data.failures.slice(0, hidden).reduce((sum, fact) => sum + fact.count, 0);
    if (olderCount > 0) lines.push(`  (+${olderCount} earlier failures)`);
    for (const fact of shown) {
      const times = fact.count > 1 ? ` (×${fact.count})` : "";
      const target = fact.target ? ` ${clip(fact.target, 80)}` : "";
      lines.push(
        `  - ${fact.tool}${target}: ${fact.errorType}: ${clip(fact.message, limits.maxLineLength)}${times}`,
      );
    }
  }

  const changed = new Set(data.filesChanged);
  const artifacts = data.artifacts.filter((artifact) => !changed.has(artifact));
  lines.push(...renderPaths("Artifacts", artifacts, limits.maxArtifacts, limits.maxLineLength));
  return lines.join("\n");
}
