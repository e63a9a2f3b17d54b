import type { ParsedTrace } from "./read-trace.js";
import { readCostUsd } from "../model/cost-usd.js";
import { asText, readNumber, readString } from "./html/attribute-readers.js";
import { buildReportTimeline } from "./html/build-report-timeline.js";
import type { TurnGroup } from "./html/report-items.js";
import { exitTone } from "./html/describe-notice.js";
import { escapeHtml, escapeVisibleText } from "./html/escape-html.js";
import { elapsedMilliseconds, formatCost, formatDuration, formatInteger } from "./html/format-values.js";
import { renderTimeline } from "./html/render-timeline.js";
import { renderUsageCharts } from "./html/render-usage-charts.js";
import { countOutcomes, summarizeTurns, type OutcomeCounts } from "./html/summarize-report.js";
import { TRACE_REPORT_SCRIPT } from "./html/trace-report-script.js";
import { TRACE_REPORT_STYLE } from "./html/trace-report-style.js";

/**
 * The page may load nothing from anywhere: a report is opened from disk or a CI artifact, and
 * the trace inside it is untrusted text. Inline style and script only; images only as data URLs.
 */
const CONTENT_SECURITY_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:";
const GOAL_HEADLINE_CHARS = 180;

/**
 * Renders a recorded run as one self-contained HTML page: header, usage charts and the timeline
 * of turns with every step expandable. Every string from the trace is escaped.
 */
export function renderTraceHtml(trace: ParsedTrace): string {
  const turns = buildReportTimeline(trace.events);
  const figures = summarizeTurns(turns);
  const counts = countOutcomes(turns);
  const goal = asText(trace.header.user_goal);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(`AgentForge run ${asText(trace.header.run_id)}: ${shortenLine(goal, 80)}`)}</title>
<style>${TRACE_REPORT_STYLE}</style>
</head>
<body>
<main>
${renderHeader(trace, turns, counts)}
${renderFinalAnswer(trace)}
<h2>Usage</h2>
${renderUsageCharts(figures, contextWindow(trace))}
<h2>Timeline</h2>
<div class="toolbar" id="toolbar" hidden><button type="button" id="expand-all">Expand all</button><button type="button" id="collapse-all">Collapse all</button><label><input type="checkbox" id="only-problems"> Only errors, refusals and warnings</label></div>
<div id="timeline">${renderTimeline(turns, asText(trace.header.start_time))}</div>
<footer class="page-foot">Rendered from the trace alone: no model and no tool were called. Schema ${escapeHtml(asText(trace.header.schema))}.</footer>
</main>
<script>${TRACE_REPORT_SCRIPT}</script>
</body>
</html>
`;
}

function renderHeader(trace: ParsedTrace, turns: readonly TurnGroup[], counts: OutcomeCounts): string {
  const { header, footer } = trace;
  const goal = asText(header.user_goal);
  const lastUsage = lastCumulativeUsage(turns);
  const exitReason = footer !== null ? asText(footer.exit_reason) : null;
  const turnCount =
    footer !== null && typeof footer.turns === "number"
      ? footer.turns
      : Math.max(0, ...turns.map((turn) => turn.step));
  const usage = footer?.usage;
  const totalTokens = typeof usage?.total_tokens === "number" ? usage.total_tokens : lastUsage.tokens;
  // A footer states the cost, null meaning unknown; without one the last running total is all there is.
  const cost = footer !== null ? readCostUsd(footer.cost_usd) : lastUsage.costUsd;
  const costText = footer === null && cost === null ? "—" : formatCost(cost);
  const elapsed =
    footer !== null ? elapsedMilliseconds(asText(header.start_time), asText(footer.finish_time)) : null;
  const meta: [string, string][] = [
    ["task", asText(header.task)],
    ["model", asText(header.model)],
    ["started", asText(header.start_time)],
    ["mode", asText(header.mode)],
    ["approval", asText(header.approval_mode)],
    ["workspace", asText(header.workspace)],
    ["config", asText(header.config_digest)],
  ];
  const headline = shortenLine(goal, GOAL_HEADLINE_CHARS);
  const stats = [
    stat(
      "Outcome",
      `<span class="badge badge-${exitTone(exitReason)}">${escapeVisibleText(exitReason ?? "no footer")}</span>`,
      elapsed === null ? "" : formatDuration(elapsed),
    ),
    stat("Turns", escapeHtml(formatInteger(turnCount)), `${formatInteger(counts.modelCalls)} model call(s)`),
    stat(
      "Tokens",
      escapeHtml(totalTokens === null ? "—" : formatInteger(totalTokens)),
      typeof usage?.prompt_tokens === "number" && typeof usage.completion_tokens === "number"
        ? `${formatInteger(usage.prompt_tokens)} in · ${formatInteger(usage.completion_tokens)} out`
        : "",
    ),
    stat("Cost", escapeHtml(costText), ""),
    stat(
      "Tool calls",
      escapeHtml(formatInteger(counts.toolOk + counts.toolErrors + counts.refusals)),
      `${counts.toolOk} ok · ${counts.toolErrors} failed · ${counts.refusals} refused`,
    ),
  ].join("");
  return `<header class="card run-header">
<div class="eyebrow"><span>AgentForge run report</span><code>${escapeVisibleText(asText(header.run_id))}</code></div>
<h1 class="goal">${escapeVisibleText(headline)}</h1>
${headline !== goal.trim() ? `<details class="goal-more"><summary>Full goal</summary><pre>${escapeVisibleText(goal)}</pre></details>` : ""}
<div class="meta">${meta
    .filter(([, value]) => value !== "")
    .map(([key, value]) => `<span>${escapeHtml(key)} <b>${escapeVisibleText(value)}</b></span>`)
    .join("")}</div>
<div class="stats">${stats}</div>
${renderChips(counts)}
${renderAllRefused(trace)}
${renderRunProblems(trace)}
</header>`;
}

/** A run whose every action was refused did nothing, whatever its final answer claims. */
function renderAllRefused(trace: ParsedTrace): string {
  const actions = trace.footer?.actions;
  // The footer is read from a file: trust no field's type.
  if (typeof actions?.attempted !== "number" || typeof actions.refused !== "number") return "";
  if (actions.attempted === 0 || actions.refused !== actions.attempted) return "";
  return `<p class="callout tone-refused"><strong>Every action was refused</strong> (${formatInteger(actions.refused)} of ${formatInteger(actions.attempted)}): nothing was changed or run.</p>`;
}

function stat(label: string, valueHtml: string, sub: string): string {
  return `<div class="stat"><div class="stat-label">${escapeHtml(label)}</div><div class="stat-value">${valueHtml}</div>${sub !== "" ? `<div class="stat-sub">${escapeHtml(sub)}</div>` : ""}</div>`;
}

function renderChips(counts: OutcomeCounts): string {
  const chips: string[] = [];
  for (const [errorType, count] of [...counts.errorTypes].sort((left, right) => right[1] - left[1])) {
    chips.push(chip(`${errorType} × ${count}`, "danger"));
  }
  if (counts.refusals > 0) chips.push(chip(`refused × ${counts.refusals}`, "refused"));
  if (counts.retries > 0) chips.push(chip(`retries × ${counts.retries}`, "warn"));
  if (counts.fallbacks > 0) chips.push(chip(`fallbacks × ${counts.fallbacks}`, "warn"));
  if (counts.loops > 0) chips.push(chip(`loop detected × ${counts.loops}`, "danger"));
  if (counts.compactions > 0) chips.push(chip(`compactions × ${counts.compactions}`, "info"));
  if (counts.prunes > 0) chips.push(chip(`prunes × ${counts.prunes}`, "info"));
  if (counts.subagents > 0) chips.push(chip(`subagents × ${counts.subagents}`, "subagent"));
  return chips.length === 0 ? "" : `<div class="chips">${chips.join("")}</div>`;
}

function chip(label: string, tone: string): string {
  return `<span class="badge badge-${escapeHtml(tone)}">${escapeVisibleText(label)}</span>`;
}

function renderRunProblems(trace: ParsedTrace): string {
  const parts: string[] = [];
  if (trace.footer === null) {
    parts.push(
      `<p class="callout tone-warn">The trace has no footer: the run crashed or is still going.</p>`,
    );
  } else if (typeof trace.footer.error === "string" && trace.footer.error !== "") {
    parts.push(
      `<p class="callout tone-danger"><strong>Error:</strong> ${escapeVisibleText(trace.footer.error)}</p>`,
    );
  }
  if (trace.problems.length > 0) {
    const items = trace.problems.map((problem) => `<li>${escapeVisibleText(problem)}</li>`).join("");
    parts.push(
      `<div class="callout tone-warn">Some lines of the trace could not be read:<ul>${items}</ul></div>`,
    );
  }
  return parts.join("\n");
}

function renderFinalAnswer(trace: ParsedTrace): string {
  const finished = [...trace.events].reverse().find((event) => event.event_type === "run-finished");
  const answer = finished === undefined ? null : readString(finished.attributes, "run.final_answer");
  if (answer === null || answer.trim() === "") return "";
  return `<section class="card final-answer" aria-label="Final answer"><div class="field-label">Final answer</div><pre>${escapeVisibleText(answer)}</pre></section>`;
}

/** The window size, when a context-warning recorded it. */
function contextWindow(trace: ParsedTrace): number | null {
  for (const event of trace.events) {
    if (event.event_type !== "context-warning") continue;
    const window = readNumber(event.attributes, "context.window_tokens");
    if (window !== null) return window;
  }
  return null;
}

/** The last cumulative figures of the main agent, used when the footer is missing. */
function lastCumulativeUsage(turns: readonly TurnGroup[]): { tokens: number | null; costUsd: number | null } {
  let tokens: number | null = null;
  let costUsd: number | null = null;
  for (const turn of turns) {
    tokens = turn.cumulativeTokens ?? tokens;
    costUsd = turn.cumulativeCostUsd ?? costUsd;
  }
  return { tokens, costUsd };
}

function shortenLine(text: string, limit: number): string {
  const trimmed = text.trim();
  return trimmed.length > limit ? `${trimmed.slice(0, limit).trimEnd()}…` : trimmed;
}
