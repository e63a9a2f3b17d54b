import type { ModelCallItem, ReportItem, SubagentItem, ToolCallItem, TurnGroup } from "./report-items.js";
import { describeNotice, exitTone } from "./describe-notice.js";
import { escapeHtml, escapeVisibleText } from "./escape-html.js";
import { elapsedMilliseconds, formatCost, formatDuration, formatInteger } from "./format-values.js";
import type { Attributes } from "./attribute-readers.js";
import { asText } from "./attribute-readers.js";

/** Past this a field is cut: a report must stay openable even when a tool printed megabytes. */
const MAX_FIELD_CHARS = 60_000;
const BRIEF_CHARS = 140;

/** Renders turns as sections of expandable steps; subagents recurse into an indented block. */
export function renderTimeline(turns: readonly TurnGroup[], startTime: string): string {
  if (turns.length === 0) return `<p class="empty">The trace holds no events.</p>`;
  return turns.map((turn) => renderTurn(turn, startTime, false)).join("\n");
}

function renderTurn(turn: TurnGroup, startTime: string, nested: boolean): string {
  const label = turn.step <= 0 ? "Before the first turn" : `Turn ${turn.step}`;
  const models = turn.items.filter(
    (item): item is ModelCallItem => item.kind === "model-call" && item.answered,
  );
  const input = models.reduce((sum, item) => sum + (item.inputTokens ?? 0), 0);
  const output = models.reduce((sum, item) => sum + (item.outputTokens ?? 0), 0);
  const cost = models.reduce<number | null>(
    (sum, item) => (sum === null || item.costUsd === null ? null : sum + item.costUsd),
    0,
  );
  const usage =
    models.length === 0
      ? ""
      : `${formatInteger(input)} in · ${formatInteger(output)} out · ${formatCost(cost)}` +
        (turn.cumulativeTokens !== null ? ` · ${formatInteger(turn.cumulativeTokens)} tokens so far` : "");
  const steps = turn.items.map((item) => renderItem(item, startTime)).join("\n");
  return `<section class="turn${nested ? " turn-nested" : ""}" data-step="${turn.step}">
<header class="turn-head"><h3>${escapeHtml(label)}</h3><span class="turn-usage">${escapeHtml(usage)}</span></header>
<ol class="steps">${steps}</ol></section>`;
}

function renderItem(item: ReportItem, startTime: string): string {
  switch (item.kind) {
    case "model-call":
      return renderModelCall(item, startTime);
    case "tool-call":
      return renderToolCall(item, startTime);
    case "subagent":
      return renderSubagent(item, startTime);
    case "notice": {
      const notice = describeNotice(item.eventType, item.attributes);
      const problem = notice.tone === "warn" || notice.tone === "danger";
      return step({
        className: `step-notice notice-${notice.tone}`,
        problem,
        badge: badge(notice.label, notice.tone),
        title: notice.title,
        brief: notice.detail ?? "",
        meta: timeMeta(item.timestamp, startTime),
        body:
          (notice.detail !== null ? field("Detail", notice.detail) : "") + attributeTable(item.attributes),
      });
    }
  }
}

function renderModelCall(item: ModelCallItem, startTime: string): string {
  const said = item.text !== null && item.text.trim() !== "" ? item.text : null;
  const called = item.toolCalls.map((call) => call.name).join(", ");
  const brief = said !== null ? said : called !== "" ? `calls ${called}` : item.answered ? "(no text)" : "";
  const tokens =
    item.inputTokens !== null || item.outputTokens !== null
      ? `${formatInteger(item.inputTokens ?? 0)} in / ${formatInteger(item.outputTokens ?? 0)} out`
      : "";
  const facts: [string, string][] = [
    ["model", item.model],
    ["finish reason", item.finishReason ?? ""],
    ["messages sent", item.messageCount === null ? "" : formatInteger(item.messageCount)],
    ["prompt tokens", item.inputTokens === null ? "" : formatInteger(item.inputTokens)],
    ["output tokens", item.outputTokens === null ? "" : formatInteger(item.outputTokens)],
    ["cost", formatCost(item.costUsd)],
    ["duration", item.durationMs === null ? "" : formatDuration(item.durationMs)],
  ];
  const calls = item.toolCalls
    .map((call) =>
      field(
        "Requested",
        prettyJson(call.arguments),
        "",
        `${call.name}${call.id !== "" ? ` · ${call.id}` : ""}`,
      ),
    )
    .join("");
  return step({
    className: "step-model",
    problem: !item.answered,
    badge: item.answered ? badge("model", "model") : badge("no answer", "danger"),
    title: item.model === "" ? "Model call" : item.model,
    brief,
    meta: [
      tokens,
      item.durationMs === null ? "" : formatDuration(item.durationMs),
      timeMeta(item.timestamp, startTime),
    ]
      .filter((part) => part !== "")
      .join(" · "),
    body:
      (said !== null ? field("Said", said, "prose") : "") +
      calls +
      (item.answered ? "" : `<p class="callout tone-danger">No answer was recorded for this call.</p>`) +
      factTable(facts),
  });
}

function renderToolCall(item: ToolCallItem, startTime: string): string {
  const tone =
    item.outcome === "ok"
      ? "success"
      : item.outcome === "refused"
        ? "refused"
        : item.outcome === "pending"
          ? "muted"
          : "danger";
  const label =
    item.outcome === "ok"
      ? "ok"
      : item.outcome === "refused"
        ? "refused"
        : item.outcome === "pending"
          ? "no result"
          : (item.errorType ?? item.outcome);
  const brief = item.outcome === "ok" ? (item.summary ?? "") : (item.message ?? item.summary ?? "");
  const explanation =
    item.outcome === "refused"
      ? `<p class="callout tone-refused"><strong>Refused.</strong> ${escapeVisibleText(item.message ?? "No reason was recorded.")}</p>`
      : item.outcome !== "ok" && item.outcome !== "pending"
        ? `<p class="callout tone-danger"><strong>${escapeHtml(item.errorType ?? item.outcome)}</strong> ${escapeVisibleText(item.message ?? "")}</p>`
        : "";
  return step({
    className: `step-tool outcome-${item.outcome}`,
    problem: item.outcome !== "ok",
    badge: badge(label, tone),
    title: item.name,
    brief,
    meta: [
      item.durationMs === null ? "" : formatDuration(item.durationMs),
      timeMeta(item.timestamp, startTime),
    ]
      .filter((part) => part !== "")
      .join(" · "),
    body:
      explanation +
      (item.arguments !== null ? field("Arguments", prettyJson(item.arguments)) : "") +
      (item.summary !== null && item.summary !== "" ? field("Summary", item.summary) : "") +
      (item.output !== null && item.output !== "" ? field("Output", item.output, "output") : "") +
      (item.artifacts.length > 0 ? field("Artifacts", item.artifacts.join("\n")) : ""),
  });
}

function renderSubagent(item: SubagentItem, startTime: string): string {
  const status = item.finished
    ? (item.exitReason ?? "finished")
    : item.inferred
      ? "events"
      : "did not finish";
  const tone = item.finished ? exitTone(item.exitReason) : item.inferred ? "muted" : "warn";
  const nested = item.turns.map((turn) => renderTurn(turn, startTime, true)).join("\n");
  const problem =
    !item.finished && !item.inferred ? true : tone === "danger" || nested.includes('data-problem="true"');
  return `<li class="step-item" data-problem="${String(problem)}"><details class="step step-subagent" open>
<summary>${badge("subagent", "subagent")}<span class="step-title">${escapeVisibleText(item.name)}${item.inferred && !item.finished ? "" : ` ${badge(status, tone)}`}</span><span class="step-brief">${escapeVisibleText(shorten(item.goal ?? ""))}</span><span class="step-meta">${escapeHtml([item.finished ? formatCost(item.costUsd) : "", timeMeta(item.timestamp, startTime)].filter((part) => part !== "").join(" · "))}</span></summary>
<div class="step-body subagent-body">${item.goal !== null ? field("Goal", item.goal, "prose") : ""}<div class="nested">${nested || `<p class="empty">No nested events were recorded.</p>`}</div></div></details></li>`;
}

interface StepParts {
  readonly className: string;
  readonly problem: boolean;
  readonly badge: string;
  readonly title: string;
  readonly brief: string;
  readonly meta: string;
  readonly body: string;
}

function step(parts: StepParts): string {
  return `<li class="step-item" data-problem="${String(parts.problem)}"><details class="step ${parts.className}">
<summary>${parts.badge}<span class="step-title">${escapeVisibleText(parts.title)}</span><span class="step-brief">${escapeVisibleText(shorten(parts.brief))}</span><span class="step-meta">${escapeHtml(parts.meta)}</span></summary>
<div class="step-body">${parts.body || `<p class="empty">Nothing more was recorded for this step.</p>`}</div></details></li>`;
}

function badge(label: string, tone: string): string {
  return `<span class="badge badge-${escapeHtml(tone)}">${escapeVisibleText(label)}</span>`;
}

/** A labelled block of recorded text; `code` names a tool or id in the label, shown as written. */
function field(label: string, text: string, className = "", code = ""): string {
  const cut = text.length > MAX_FIELD_CHARS;
  const shown = cut ? text.slice(0, MAX_FIELD_CHARS) : text;
  const note = cut
    ? `<p class="note">${formatInteger(text.length - MAX_FIELD_CHARS)} more characters not shown.</p>`
    : "";
  const codeLabel = code === "" ? "" : ` <code>${escapeVisibleText(code)}</code>`;
  return `<div class="field"><div class="field-label">${escapeVisibleText(label)}${codeLabel}</div><pre class="${className}">${escapeVisibleText(shown)}</pre>${note}</div>`;
}

function factTable(facts: readonly [string, string][]): string {
  const rows = facts
    .filter(([, value]) => value !== "")
    .map(([key, value]) => `<tr><th>${escapeHtml(key)}</th><td>${escapeVisibleText(value)}</td></tr>`)
    .join("");
  return rows === "" ? "" : `<table class="facts">${rows}</table>`;
}

function attributeTable(attributes: Attributes): string {
  const facts = Object.entries(attributes).map(([key, value]): [string, string] => [
    key,
    shorten(asText(value), 2000),
  ]);
  return factTable(facts);
}

/** Arguments are JSON text from the model; shown indented when they parse, as they are when not. */
function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch (error) {
    return error instanceof SyntaxError ? text : String(text);
  }
}

function timeMeta(timestamp: string, startTime: string): string {
  const elapsed = elapsedMilliseconds(startTime, timestamp);
  return elapsed === null ? "" : `+${formatDuration(Math.max(0, elapsed))}`;
}

function shorten(text: string, limit = BRIEF_CHARS): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > limit ? `${flat.slice(0, limit)}…` : flat;
}
