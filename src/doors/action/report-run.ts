import { access } from "node:fs/promises";
import type { ActionContext } from "./action-context.js";
import { readCostUsd } from "../../core/model/index.js";
import { renderJobSummary } from "./render-job-summary.js";
import { saveTraceReport } from "./save-trace-report.js";

export interface RunReport {
  readonly result: string;
  readonly headline: string;
  readonly details?: string;
  readonly url?: string;
  readonly branch?: string;
  readonly tracePath?: string;
  /** What the work cost; without it the trace's footer says, and a step without either reports none. */
  readonly usage?: RunUsage;
}

export interface RunUsage {
  /** Null for work of several runs (a review's panel). */
  readonly turns: number | null;
  readonly totalTokens: number;
  /** Null when the model's price is unknown: the output says "unknown", never 0. */
  readonly costUsd: number | null;
}

/** The `turns`, `total-tokens` and `cost-usd` outputs: empty when unknown or not spent, never a made-up 0. */
function setUsageOutputs(io: ActionContext["dependencies"]["io"], usage: RunUsage | undefined): void {
  io.setOutput("turns", usage?.turns === null || usage === undefined ? "" : String(usage.turns));
  io.setOutput("total-tokens", usage === undefined ? "" : String(usage.totalTokens));
  io.setOutput(
    "cost-usd",
    usage === undefined ? "" : usage.costUsd === null ? "unknown" : usage.costUsd.toFixed(6),
  );
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch (error) {
    // A run that stopped before its first event leaves no trace; any other failure is real.
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}

/**
 * Ends every path of the step the same way: outputs set, the HTML report written beside the
 * trace, and the job summary appended. All text passes through the redactor first.
 */
export async function reportRun(context: ActionContext, report: RunReport): Promise<void> {
  const { io } = context.dependencies;
  const redact = (text: string): string => context.redactor.redact(text);
  io.setOutput("result", report.result);
  io.setOutput("pr-url", report.url ?? "");
  io.setOutput("branch", report.branch ?? "");
  const tracePath =
    report.tracePath !== undefined && (await exists(report.tracePath)) ? report.tracePath : undefined;
  io.setOutput("trace-path", tracePath ?? "");
  let saved: Awaited<ReturnType<typeof saveTraceReport>> | undefined;
  if (tracePath !== undefined) {
    saved = await saveTraceReport(tracePath);
    if (!saved.success) io.warning(`No HTML report: ${saved.error}`);
  }
  const footer = saved?.success ? saved.value.trace.footer : undefined;
  setUsageOutputs(
    io,
    report.usage ??
      (footer === undefined || footer === null
        ? undefined
        : {
            turns: footer.turns,
            totalTokens: footer.usage.total_tokens,
            costUsd: readCostUsd(footer.cost_usd),
          }),
  );
  const summary = renderJobSummary({
    headline: report.headline,
    ...(report.details ? { details: report.details } : {}),
    ...(report.url ? { url: report.url } : {}),
    ...(saved?.success ? { trace: saved.value.trace, htmlPath: saved.value.htmlPath } : {}),
    ...(tracePath ? { tracePath } : {}),
    ...(context.environment.runUrl ? { runUrl: context.environment.runUrl } : {}),
  });
  await io.appendSummary(redact(summary));
  io.info(redact(`AgentForge: ${report.headline}${report.url ? ` ${report.url}` : ""}`));
}
