/** The report's stylesheet, inlined: system fonts only, so the page fetches nothing. */
export const TRACE_REPORT_STYLE = `
:root {
  --bg: #f5f6f8; --card: #ffffff; --text: #1f2328; --muted: #646c76; --border: #d8dde3; --soft: #eef1f4;
  --success: #1a7f37; --success-bg: #dafbe1; --danger: #c0262f; --danger-bg: #ffebe9;
  --warn: #8a5a00; --warn-bg: #fff4d1; --refused: #b34700; --refused-bg: #fff0e0;
  --info: #0b63c4; --info-bg: #ddefff; --subagent: #7646d1; --subagent-bg: #f1eafe;
  --model: #0a4f9e; --model-bg: #e6f0fb; --muted-bg: #eef0f3;
  --chart-context: #2f6fde; --chart-input: #9cc0f5; --chart-output: #2f6fde; --chart-cost: #d0572a;
  --mono: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono", monospace;
  color-scheme: light dark;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0f1216; --card: #171b21; --text: #e4e8ed; --muted: #98a2ad; --border: #2d343d; --soft: #1f252c;
    --success: #4ac26b; --success-bg: #12301c; --danger: #ff7b72; --danger-bg: #3a1618;
    --warn: #e3b341; --warn-bg: #33290c; --refused: #ff9e57; --refused-bg: #3a230f;
    --info: #6cb6ff; --info-bg: #102a44; --subagent: #b99aff; --subagent-bg: #271c40;
    --model: #7fb4ff; --model-bg: #13263d; --muted-bg: #22282f;
    --chart-context: #6ea8ff; --chart-input: #2c4f80; --chart-output: #6ea8ff; --chart-cost: #ff9160;
  }
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body {
  margin: 0; background: var(--bg); color: var(--text);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
}
main { max-width: 1180px; margin: 0 auto; padding: 28px 24px 64px; }
h1, h2, h3 { line-height: 1.25; margin: 0; }
h2 { font-size: 18px; margin: 32px 0 12px; }
code, pre, .mono { font-family: var(--mono); font-size: 13px; }
.card { background: var(--card); border: 1px solid var(--border); border-radius: 10px; }
.run-header { padding: 22px 24px; }
.eyebrow { color: var(--muted); font-size: 13px; letter-spacing: .02em; display: flex; gap: 8px; flex-wrap: wrap; align-items: center; }
.goal { font-size: 22px; font-weight: 650; margin: 8px 0 6px; overflow-wrap: anywhere; white-space: pre-wrap; }
.goal-more summary { cursor: pointer; color: var(--info); font-size: 13px; }
.goal-more pre { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--soft); padding: 10px 12px; border-radius: 8px; }
.meta { color: var(--muted); font-size: 13px; display: flex; flex-wrap: wrap; gap: 4px 18px; margin-top: 6px; }
.meta b { color: var(--text); font-weight: 600; }
.stats { display: grid; grid-template-columns: repeat(auto-fit, minmax(150px, 1fr)); gap: 12px; margin-top: 18px; }
.stat { background: var(--soft); border-radius: 8px; padding: 10px 14px; }
.stat-label { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .06em; }
.stat-value { font-size: 20px; font-weight: 650; font-variant-numeric: tabular-nums; }
.stat-sub { color: var(--muted); font-size: 12px; font-variant-numeric: tabular-nums; }
.chips { display: flex; flex-wrap: wrap; gap: 6px; margin-top: 14px; }
.callout { border-radius: 8px; padding: 10px 14px; margin: 10px 0; overflow-wrap: anywhere; white-space: pre-wrap; }
.callout ul { margin: 4px 0 0; padding-left: 20px; }
.tone-success { background: var(--success-bg); color: var(--success); }
.tone-danger { background: var(--danger-bg); color: var(--danger); }
.tone-warn { background: var(--warn-bg); color: var(--warn); }
.tone-refused { background: var(--refused-bg); color: var(--refused); border-left: 4px solid var(--refused); }
.tone-info { background: var(--info-bg); color: var(--info); }
.final-answer { padding: 16px 20px; margin-top: 16px; border-left: 4px solid var(--success); }
.final-answer pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: 6px 0 0; font: inherit; }
.badge {
  display: inline-block; font-size: 11px; font-weight: 650; line-height: 18px; padding: 0 8px; border-radius: 999px;
  text-transform: uppercase; letter-spacing: .04em; white-space: nowrap; background: var(--muted-bg); color: var(--muted);
}
.badge-success { background: var(--success-bg); color: var(--success); }
.badge-danger { background: var(--danger-bg); color: var(--danger); }
.badge-warn { background: var(--warn-bg); color: var(--warn); }
.badge-refused { background: var(--refused); color: #fff; }
.badge-info { background: var(--info-bg); color: var(--info); }
.badge-model { background: var(--model-bg); color: var(--model); }
.badge-subagent { background: var(--subagent-bg); color: var(--subagent); }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(420px, 1fr)); gap: 16px; }
.chart-card { margin: 0; padding: 14px 14px 10px; background: var(--card); border: 1px solid var(--border); border-radius: 10px; }
.chart { width: 100%; height: auto; display: block; }
.chart .grid { stroke: var(--border); stroke-width: 1; }
.chart .axis-label, .chart .axis-title { fill: var(--muted); font-size: 11px; font-family: inherit; }
.chart .cost-label { fill: var(--chart-cost); }
.chart .context-line { fill: none; stroke: var(--chart-context); stroke-width: 2.5; stroke-linejoin: round; }
.chart .context-area { fill: var(--chart-context); opacity: .12; }
.chart .context-dot { fill: var(--card); stroke: var(--chart-context); stroke-width: 2; }
.chart .window-label { fill: var(--danger); font-size: 10px; }
.chart .window-line { stroke: var(--danger); stroke-dasharray: 6 4; stroke-width: 1.5; }
.chart .change-marker line { stroke: var(--subagent); stroke-dasharray: 3 3; stroke-width: 1.5; }
.chart .change-marker text { fill: var(--subagent); font-size: 10px; }
.chart .bar-input { fill: var(--chart-input); }
.chart .bar-output { fill: var(--chart-output); }
.chart .cost-line { fill: none; stroke: var(--chart-cost); stroke-width: 2; stroke-dasharray: 5 3; }
figcaption { display: flex; justify-content: space-between; flex-wrap: wrap; gap: 6px; font-size: 13px; margin-top: 6px; }
.legend { color: var(--muted); display: inline-flex; align-items: center; gap: 6px; flex-wrap: wrap; }
.swatch { display: inline-block; width: 12px; height: 12px; border-radius: 3px; margin-left: 8px; }
.swatch-context, .swatch-output { background: var(--chart-context); }
.swatch-input { background: var(--chart-input); }
.swatch-cost { background: var(--chart-cost); }
.swatch-change { background: var(--subagent); }
.toolbar { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; margin: 0 0 12px; }
.toolbar button {
  font: inherit; font-size: 13px; padding: 4px 12px; border-radius: 6px; border: 1px solid var(--border);
  background: var(--card); color: var(--text); cursor: pointer;
}
.toolbar button:hover { border-color: var(--muted); }
.toolbar label { font-size: 13px; color: var(--muted); display: inline-flex; gap: 6px; align-items: center; margin-left: 8px; }
.turn { background: var(--card); border: 1px solid var(--border); border-radius: 10px; margin-bottom: 12px; overflow: hidden; }
.turn-head { display: flex; justify-content: space-between; align-items: baseline; gap: 12px; flex-wrap: wrap; padding: 8px 16px; background: var(--soft); border-bottom: 1px solid var(--border); }
.turn-head h3 { font-size: 14px; }
.turn-usage { color: var(--muted); font-size: 12px; font-variant-numeric: tabular-nums; }
.turn-nested { border-radius: 8px; margin: 8px 0; }
.turn-nested .turn-head { padding: 5px 12px; }
.steps { list-style: none; margin: 0; padding: 4px 0; }
.step-item + .step-item { border-top: 1px solid var(--soft); }
.step > summary {
  display: grid; grid-template-columns: 8px auto minmax(60px, max-content) minmax(0, 1fr) auto; gap: 10px; align-items: center;
  padding: 7px 16px; cursor: pointer; list-style: none;
}
.step > summary::-webkit-details-marker { display: none; }
.step > summary::before { content: "▸"; color: var(--muted); font-size: 11px; }
.step[open] > summary::before { content: "▾"; }
.step > summary:hover { background: var(--soft); }
.step > summary:focus-visible { outline: 2px solid var(--info); outline-offset: -2px; }
.step-title { font-weight: 600; font-family: var(--mono); font-size: 13px; overflow-wrap: anywhere; }
.step-notice .step-title { font-family: inherit; font-size: 14px; font-weight: 600; }
.step-brief { color: var(--muted); white-space: nowrap; overflow: hidden; text-overflow: ellipsis; min-width: 0; }
.step-meta { color: var(--muted); font-size: 12px; white-space: nowrap; font-variant-numeric: tabular-nums; }
.step-body { padding: 4px 16px 14px 28px; }
.outcome-refused > summary { background: var(--refused-bg); box-shadow: inset 4px 0 0 var(--refused); }
.outcome-error > summary, .outcome-timeout > summary, .outcome-cancelled > summary { box-shadow: inset 4px 0 0 var(--danger); }
.notice-danger > summary { background: var(--danger-bg); box-shadow: inset 4px 0 0 var(--danger); }
.notice-warn > summary { box-shadow: inset 4px 0 0 var(--warn); }
.notice-info > summary { box-shadow: inset 4px 0 0 var(--info); }
.notice-success > summary { box-shadow: inset 4px 0 0 var(--success); }
.step-subagent > summary { box-shadow: inset 4px 0 0 var(--subagent); }
.nested { border-left: 3px solid var(--subagent-bg); padding-left: 14px; margin-top: 8px; }
.field { margin: 10px 0; }
.field-label { font-size: 12px; font-weight: 600; color: var(--muted); text-transform: uppercase; letter-spacing: .05em; margin-bottom: 4px; }
.field pre {
  margin: 0; padding: 10px 12px; background: var(--soft); border-radius: 8px; white-space: pre-wrap;
  overflow-wrap: anywhere; max-height: 420px; overflow: auto;
}
.field-label code { text-transform: none; letter-spacing: 0; color: var(--text); font-weight: 600; }
.field pre.prose { font-family: inherit; font-size: 14px; }
.facts { border-collapse: collapse; font-size: 13px; margin-top: 8px; }
.facts th { text-align: left; color: var(--muted); font-weight: 500; padding: 2px 16px 2px 0; vertical-align: top; white-space: nowrap; }
.facts td { font-family: var(--mono); font-size: 12px; overflow-wrap: anywhere; }
.empty, .note { color: var(--muted); font-size: 13px; }
.only-problems .step-item[data-problem="false"] { display: none; }
.only-problems .turn:not(:has(.step-item[data-problem="true"])) { display: none; }
footer.page-foot { color: var(--muted); font-size: 12px; margin-top: 32px; text-align: center; }
@media (max-width: 720px) {
  main { padding: 16px 12px 48px; }
  .step > summary { grid-template-columns: 8px auto 1fr; }
  .step-brief, .step-meta { grid-column: 1 / -1; }
  .charts { grid-template-columns: 1fr; }
}
@media print {
  .toolbar { display: none; }
  details.step > .step-body { display: block; }
}
`;
