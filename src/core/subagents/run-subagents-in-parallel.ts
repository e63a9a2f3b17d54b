import type { Tool, ToolContext } from "../tools/tool.js";
import { errorResult, type ToolResult } from "../tools/tool-result.js";

export interface SubagentTask {
  /** A `subagent_*` tool from createSubagentTools. */
  readonly tool: Tool;
  readonly goal: string;
}

export interface ParallelSubagentOptions {
  /**
   * Applied to every text of every result. A subagent's answer quotes what it read, so anything
   * leaving the core (a review comment) must be redacted; the parent registry does this for
   * calls the model makes, this helper does it for direct callers such as the review door.
   */
  readonly redact?: (text: string) => string;
}

/**
 * Runs several subagents side by side (the reviewer's correctness, security and test passes) and
 * returns their results in task order. The tools' shared limit decides how many run at once; one
 * failing never stops the others.
 */
export async function runSubagentsInParallel(
  tasks: readonly SubagentTask[],
  context: ToolContext,
  options: ParallelSubagentOptions = {},
): Promise<ToolResult[]> {
  const results = await Promise.all(
    tasks.map(async ({ tool, goal }) => {
      const parsed = tool.inputSchema.safeParse({ goal });
      if (!parsed.success) {
        return errorResult("INVALID_ARGUMENTS", {
          message: `${tool.name} needs a non-empty goal.`,
          recovery_hint: "Pass a goal that says what to review or find.",
          next_actions: [],
        });
      }
      return tool.execute(parsed.data, context).catch((error: unknown) =>
        errorResult("SUBAGENT_FAILED", {
          message: `${tool.name} failed: ${error instanceof Error ? error.message : String(error)}`,
          recovery_hint: "Run it again alone, or continue without it.",
          next_actions: [],
        }),
      );
    }),
  );
  return options.redact ? results.map((result) => redactResult(result, options.redact!)) : results;
}

function redactResult(result: ToolResult, redact: (text: string) => string): ToolResult {
  return {
    ...result,
    output: redact(result.output),
    summary: redact(result.summary),
    ...(result.error ? { error: { ...result.error, message: redact(result.error.message) } } : {}),
  };
}
