import type { ActionTally } from "../agent-run.js";
import type { LoopEvent } from "../loop/loop-events.js";
import type { ToolKind } from "../tools/tool.js";

/**
 * Counts the run's actions (calls of tools that write, execute or reach the network) and how many
 * of them did not happen because something refused them: the approval policy, the session's mode,
 * or a missing sandbox. A run whose every action was refused has done nothing a person asked for,
 * whatever its final answer says.
 */
export function tallyActions(kindOf: (toolName: string) => ToolKind | undefined) {
  let attempted = 0;
  let refused = 0;
  return {
    observe(event: LoopEvent): void {
      if (event.type !== "tool-call-end") return;
      const kind = kindOf(event.name);
      if (kind === undefined || kind === "read") return;
      attempted += 1;
      if (event.result.status === "refused" || event.result.error?.error_type === "SANDBOX_UNAVAILABLE")
        refused += 1;
    },
    value(): ActionTally {
      return { attempted, refused };
    },
  };
}
