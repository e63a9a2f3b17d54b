import type { BenchRow } from "../bench-types.js";

const HEADERS = ["benchmark", "case", "value", "unit", "baseline", "ratio", "target", "met"] as const;

/** Three significant figures for small numbers, whole numbers above 1000: enough to compare runs. */
export function formatFigure(value: number | undefined): string {
  if (value === undefined) return "";
  if (Number.isNaN(value)) return "n/a";
  if (!Number.isFinite(value)) return String(value);
  const magnitude = Math.abs(value);
  if (magnitude >= 1000 || Number.isInteger(value)) return Math.round(value).toLocaleString("en-US");
  return Number(value.toPrecision(3)).toString();
}

function cellsOf(row: BenchRow): string[] {
  const baseline =
    row.baseline === undefined
      ? ""
      : `${formatFigure(row.baseline)}${row.baselineLabel === undefined ? "" : ` (${row.baselineLabel})`}`;
  const met = row.targetMet === undefined ? "" : row.targetMet ? "yes" : "NO";
  return [
    row.benchmark,
    row.case,
    formatFigure(row.value),
    row.unit,
    baseline,
    formatFigure(row.ratio),
    row.target ?? "",
    met,
  ];
}

/** One plain-text table for every row of every bench, columns padded to their widest cell. */
export function formatBenchTable(rows: readonly BenchRow[]): string {
  const lines = [[...HEADERS], ...rows.map(cellsOf)];
  const widths = HEADERS.map((_, column) => Math.max(...lines.map((cells) => (cells[column] ?? "").length)));
  const numeric = new Set([2, 5]);
  const render = (cells: readonly string[]): string =>
    cells
      .map((cell, column) => {
        const width = widths[column] ?? 0;
        return numeric.has(column) ? cell.padStart(width) : cell.padEnd(width);
      })
      .join(" | ")
      .trimEnd();
  const separator = widths.map((width) => "-".repeat(width)).join("-|-");
  const [header, ...body] = lines;
  return [render(header ?? []), separator, ...body.map(render)].join("\n");
}
