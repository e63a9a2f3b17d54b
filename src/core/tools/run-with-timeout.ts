import type { Tool, ToolContext } from "./tool.js";
import { errorResult, type ToolResult } from "./tool-result.js";

export interface TimedToolResult {
  readonly result: ToolResult;
  /** How long the tool's own execute ran (until it settled, or until it was abandoned). */
  readonly executeMs: number;
}

/**
 * Executes a tool under its own timeout. The tool gets a signal that fires on timeout or when the
 * run is cancelled; a tool that ignores it is still abandoned so the loop never hangs.
 */
export async function runWithTimeout(
  tool: Tool,
  input: unknown,
  context: ToolContext,
  timeoutMs: number,
): Promise<TimedToolResult> {
  const controller = new AbortController();
  const onParentAbort = (): void => controller.abort(context.signal.reason);
  if (context.signal.aborted) controller.abort(context.signal.reason);
  else context.signal.addEventListener("abort", onParentAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<ToolResult>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new Error("tool timeout"));
      resolve(
        errorResult("TOOL_TIMEOUT", {
          status: "timeout",
          message: `${tool.name} did not finish within ${timeoutMs} ms and was stopped.`,
          recovery_hint:
            "Try a narrower request (a smaller path, a more specific pattern, a shorter command).",
          next_actions: ["retry with a narrower request"],
        }),
      );
    }, timeoutMs);
  });
  let resolveCancelled = (): void => undefined;
  const cancelled = new Promise<ToolResult>((resolve) => {
    resolveCancelled = (): void =>
      resolve(
        errorResult("CANCELLED", {
          status: "cancelled",
          recoverable: false,
          message: "The run was cancelled while this tool was running.",
          recovery_hint: "Nothing to do: the run is stopping.",
          next_actions: [],
        }),
      );
    if (context.signal.aborted) resolveCancelled();
    else context.signal.addEventListener("abort", resolveCancelled, { once: true });
  });
  const executeStartedAt = performance.now();
  let executeEndedAt: number | null = null;
  const executed = tool
    .execute(input, { ...context, signal: controller.signal })
    .finally(() => {
      executeEndedAt = performance.now();
    })
    .catch((error: unknown) =>
      errorResult("INTERNAL_ERROR", {
        message: `${tool.name} failed unexpectedly: ${error instanceof Error ? error.message : String(error)}`,
        recovery_hint:
          "Check the arguments; if it happens again, use another tool or finish with what you have.",
        next_actions: ["retry once", "use another tool"],
      }),
    );
  try {
    const result = await Promise.race([executed, timedOut, cancelled]);
    return { result, executeMs: (executeEndedAt ?? performance.now()) - executeStartedAt };
  } finally {
    clearTimeout(timer);
    context.signal.removeEventListener("abort", onParentAbort);
    context.signal.removeEventListener("abort", resolveCancelled);
  }
}
