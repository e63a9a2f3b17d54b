import { escapeHtml } from "./escape-html.js";
import { formatCompactTokens, formatCost, formatInteger } from "./format-values.js";
import type { TurnFigures } from "./summarize-report.js";

const WIDTH = 640;
const HEIGHT = 230;
const TOP = 18;
const BOTTOM = 32;
const LEFT = 54;
const RIGHT = 60;
const PLOT_WIDTH = WIDTH - LEFT - RIGHT;
const PLOT_HEIGHT = HEIGHT - TOP - BOTTOM;
const BASELINE = TOP + PLOT_HEIGHT;
const MAX_X_LABELS = 14;
const MAX_MARKER_LABELS = 8;

/**
 * Two charts drawn here as inline SVG, so the page needs no script and no library: the context
 * size (prompt tokens) of each turn with compactions marked, and the tokens and running cost per turn.
 */
export function renderUsageCharts(figures: readonly TurnFigures[], contextWindow: number | null): string {
  if (figures.length === 0) {
    return `<section class="charts"><p class="empty">No token usage was recorded in this trace.</p></section>`;
  }
  return `<section class="charts" aria-label="Usage charts">
<figure class="chart-card">${renderContextChart(figures, contextWindow)}
<figcaption><strong>Context size per turn</strong><span class="legend"><i class="swatch swatch-context"></i>prompt tokens${contextWindow !== null ? ` · window ${escapeHtml(formatInteger(contextWindow))}` : ""}<i class="swatch swatch-change"></i>compaction / prune</span></figcaption></figure>
<figure class="chart-card">${renderTokenChart(figures)}
<figcaption><strong>Tokens per turn</strong><span class="legend"><i class="swatch swatch-input"></i>input<i class="swatch swatch-output"></i>output<i class="swatch swatch-cost"></i>cost so far</span></figcaption></figure>
</section>`;
}

function renderContextChart(figures: readonly TurnFigures[], contextWindow: number | null): string {
  const known = figures.map((figure) => figure.contextTokens ?? 0);
  const largest = Math.max(1, ...known);
  // A window far above the largest prompt would flatten the line; it is then named in the legend only.
  const drawWindow = contextWindow !== null && contextWindow > 0 && contextWindow <= largest * 1.6;
  const top = niceCeiling(drawWindow && contextWindow !== null ? Math.max(largest, contextWindow) : largest);
  const y = (value: number): number => BASELINE - (value / top) * PLOT_HEIGHT;
  const points = figures.flatMap((figure, index) =>
    figure.contextTokens === null
      ? []
      : [{ x: bandCenter(index, figures.length), y: y(figure.contextTokens), figure }],
  );
  const parts: string[] = [gridAndAxis(top, figures)];
  if (drawWindow && contextWindow !== null) {
    parts.push(
      `<line class="window-line" x1="${LEFT}" x2="${LEFT + PLOT_WIDTH}" y1="${fixed(y(contextWindow))}" y2="${fixed(y(contextWindow))}"><title>Context window: ${escapeHtml(formatInteger(contextWindow))} tokens</title></line>`,
      `<text class="window-label" x="${LEFT + PLOT_WIDTH - 2}" y="${fixed(y(contextWindow) - 4)}" text-anchor="end">window</text>`,
    );
  }
  const markerCount = figures.filter((figure) => figure.contextChanges.length > 0).length;
  // Past a handful of markers their labels would overlap; the dashed lines and tooltips remain.
  const labelMarkers = markerCount <= MAX_MARKER_LABELS;
  figures.forEach((figure, index) => {
    if (figure.contextChanges.length === 0) return;
    const x = fixed(bandCenter(index, figures.length));
    const label = escapeHtml([...new Set(figure.contextChanges)].join(" + "));
    parts.push(
      `<g class="change-marker"><line x1="${x}" x2="${x}" y1="${TOP}" y2="${BASELINE}"></line>${labelMarkers ? `<text x="${x}" y="${TOP - 5}" text-anchor="middle">${label}</text>` : ""}<title>Turn ${figure.step}: context ${label}</title></g>`,
    );
  });
  const first = points[0];
  const last = points[points.length - 1];
  if (first !== undefined && last !== undefined) {
    const line = points.map((point) => `${fixed(point.x)},${fixed(point.y)}`).join(" ");
    parts.push(
      `<path class="context-area" d="M${fixed(first.x)},${BASELINE} L${line.replaceAll(" ", " L")} L${fixed(last.x)},${BASELINE} Z"></path>`,
      `<polyline class="context-line" data-point-count="${points.length}" points="${line}"></polyline>`,
    );
  }
  const radius = figures.length > 60 ? 1.5 : 3.5;
  for (const point of points) {
    parts.push(
      `<circle class="context-dot" cx="${fixed(point.x)}" cy="${fixed(point.y)}" r="${radius}"><title>Turn ${point.figure.step}: ${escapeHtml(formatInteger(point.figure.contextTokens ?? 0))} prompt tokens</title></circle>`,
    );
  }
  return svg("chart-context", "Context size (prompt tokens) per turn", parts);
}

function renderTokenChart(figures: readonly TurnFigures[]): string {
  const top = niceCeiling(Math.max(1, ...figures.map((figure) => figure.inputTokens + figure.outputTokens)));
  // Unknown costs stay unknown once they appear, so the known figures are a prefix of the run.
  const knownCosts = figures.flatMap((figure) =>
    figure.cumulativeCostUsd === null ? [] : [figure.cumulativeCostUsd],
  );
  const costTop = Math.max(0, ...knownCosts);
  const y = (value: number): number => BASELINE - (value / top) * PLOT_HEIGHT;
  const band = PLOT_WIDTH / figures.length;
  const barWidth = Math.max(1, Math.min(36, band * 0.62));
  const parts: string[] = [gridAndAxis(top, figures)];
  figures.forEach((figure, index) => {
    const x = fixed(bandCenter(index, figures.length) - barWidth / 2);
    const inputTop = y(figure.inputTokens);
    const outputTop = y(figure.inputTokens + figure.outputTokens);
    const tip = `Turn ${figure.step}: ${formatInteger(figure.inputTokens)} input + ${formatInteger(figure.outputTokens)} output tokens, ${formatCost(figure.costUsd)}`;
    parts.push(
      `<g class="token-bar"><title>${escapeHtml(tip)}</title>` +
        `<rect class="bar-input" x="${x}" y="${fixed(inputTop)}" width="${fixed(barWidth)}" height="${fixed(BASELINE - inputTop)}"></rect>` +
        `<rect class="bar-output" x="${x}" y="${fixed(outputTop)}" width="${fixed(barWidth)}" height="${fixed(inputTop - outputTop)}"></rect></g>`,
    );
  });
  if (costTop > 0) {
    const costY = (value: number): number => BASELINE - (value / costTop) * PLOT_HEIGHT;
    const line = knownCosts
      .map((cost, index) => `${fixed(bandCenter(index, figures.length))},${fixed(costY(cost))}`)
      .join(" ");
    parts.push(
      `<polyline class="cost-line" points="${line}"><title>Cost so far: ${escapeHtml(formatCost(costTop))}</title></polyline>`,
      `<text class="axis-label cost-label" x="${LEFT + PLOT_WIDTH + 6}" y="${TOP + 4}">${escapeHtml(formatCost(costTop))}</text>`,
      `<text class="axis-label cost-label" x="${LEFT + PLOT_WIDTH + 6}" y="${BASELINE + 4}">$0</text>`,
    );
  }
  return svg("chart-tokens", "Input and output tokens per turn, with the running cost", parts);
}

function svg(className: string, label: string, parts: readonly string[]): string {
  return `<svg class="chart ${className}" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${escapeHtml(label)}" preserveAspectRatio="xMidYMid meet">${parts.join("")}</svg>`;
}

function gridAndAxis(top: number, figures: readonly TurnFigures[]): string {
  const parts: string[] = [];
  for (let tick = 0; tick <= 4; tick += 1) {
    const value = (top / 4) * tick;
    const y = fixed(BASELINE - (value / top) * PLOT_HEIGHT);
    parts.push(
      `<line class="grid" x1="${LEFT}" x2="${LEFT + PLOT_WIDTH}" y1="${y}" y2="${y}"></line>`,
      `<text class="axis-label" x="${LEFT - 8}" y="${y}" dy="4" text-anchor="end">${escapeHtml(formatCompactTokens(value))}</text>`,
    );
  }
  const every = Math.ceil(figures.length / MAX_X_LABELS);
  figures.forEach((figure, index) => {
    const isLast = index === figures.length - 1;
    // The last turn is labelled too, unless the previous label sits too close to it.
    if (index % every !== 0 && !(isLast && index % every >= every * 0.75)) return;
    parts.push(
      `<text class="axis-label" x="${fixed(bandCenter(index, figures.length))}" y="${BASELINE + 18}" text-anchor="middle">${figure.step}</text>`,
    );
  });
  parts.push(
    `<text class="axis-title" x="${LEFT + PLOT_WIDTH / 2}" y="${HEIGHT - 1}" text-anchor="middle">turn</text>`,
  );
  return parts.join("");
}

function bandCenter(index: number, count: number): number {
  return LEFT + (PLOT_WIDTH / count) * (index + 0.5);
}

const NICE_STEPS = [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10];

/** The axis top: four ticks of a round size, so the labels read 0, 1.5k, 3k... */
function niceCeiling(value: number): number {
  const tick = value / 4;
  const power = 10 ** Math.floor(Math.log10(tick));
  const scaled = tick / power;
  const step = NICE_STEPS.find((candidate) => scaled <= candidate) ?? 10;
  return step * power * 4;
}

function fixed(value: number): string {
  return value.toFixed(1);
}
