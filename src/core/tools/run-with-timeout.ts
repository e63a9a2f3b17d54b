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
  // One promise settles the race for the harness: the timer, or the run being cancelled. A single
  // listener on the run's signal does both jobs (abort the tool, answer CANCELLED).
  let stop: (result: ToolResult) => void = () => undefined;
  const stopped = new Promise<ToolResult>((resolve) => {
    stop = resolve;
  });
  const onParentAbort = (): void => {
    controller.abort(context.signal.reason);
    stop(cancelledResult());
  };
  if (context.signal.aborted) onParentAbort();
  else context.signal.addEventListener("abort", onParentAbort, { once: true });
  const timer = setTimeout(() => {
    controller.abort(new Error("tool timeout"));
    stop(
      errorResult("TOOL_TIMEOUT", {
        status: "timeout",
        message: `${tool.name} did not finish within ${timeoutMs} ms and was stopped.`,
        recovery_hint: "Try a narrower request (a smaller path, a more specific pattern, a shorter command).",
        next_actions: ["retry with a narrower request"],
      }),
    );
  }, timeoutMs);
  const executeStartedAt = performance.now();
  let executeEndedAt: number | null = null;
  const executed = tool.execute(input, { ...context, signal: controller.signal }).then(
    (result) => {
      executeEndedAt = performance.now();
      return result;
    },
    (error: unknown) => {
      executeEndedAt = performance.now();
      return errorResult("INTERNAL_ERROR", {
        message: `${tool.name} failed unexpectedly: ${error instanceof Error ? error.message : String(error)}`,
        recovery_hint:
          "Check the arguments; if it happens again, use another tool or finish with what you have.",
        next_actions: ["retry once", "use another tool"],
      });
    },
  );
  try {
    const result = await Promise.race([executed, stopped]);
    return { result, executeMs: (executeEndedAt ?? performance.now()) - executeStartedAt };
  } finally {
    clearTimeout(timer);
    context.signal.removeEventListener("abort", onParentAbort);
  }
}

function cancelledResult(): ToolResult {
  return errorResult("CANCELLED", {
    status: "cancelled",
    recoverable: false,
    message: "The run was cancelled while this tool was running.",
    recovery_hint: "Nothing to do: the run is stopping.",
    next_actions: [],
  });
}
