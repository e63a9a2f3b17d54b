import { writeFile } from "node:fs/promises";
import { readTraceFile, type ParsedTrace } from "../../core/trace/index.js";
import { renderTraceHtml } from "../../core/trace/index.js";

export interface SavedTraceReport {
  readonly trace: ParsedTrace;
  readonly htmlPath: string;
}

export type SaveTraceReportResult =
  | { readonly success: true; readonly value: SavedTraceReport }
  | { readonly success: false; readonly error: string };

/** `trace.jsonl` → `trace.html` beside it: the file people open from the run's artifacts. */
export function htmlPathFor(tracePath: string): string {
  return tracePath.replace(/\.jsonl$/, "") + ".html";
}

/**
 * Reads the run's trace (already redacted by its writer) and writes the self-contained HTML
 * report beside it. The parsed trace is returned for the job summary.
 */
export async function saveTraceReport(tracePath: string): Promise<SaveTraceReportResult> {
  const read = await readTraceFile(tracePath);
  if (!read.success) return read;
  const htmlPath = htmlPathFor(tracePath);
  await writeFile(htmlPath, renderTraceHtml(read.value), { mode: 0o600 });
  return { success: true, value: { trace: read.value, htmlPath } };
}
