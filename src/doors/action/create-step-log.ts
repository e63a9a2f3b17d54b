import { createProgressRenderer, type LoopEventListener } from "../../core/loop/index.js";
import type { ActionIo } from "./action-io.js";

export interface StepLog {
  /** Loop events of every run this step makes. */
  readonly onEvent: LoopEventListener;
  /** Writes a line the renderer left open, once the runs are over. */
  flush(): void;
}

/**
 * The step's progress in its log, as the run goes: each turn with the tokens and cost so far,
 * each tool call and its outcome, refusals with their reason, and how the run ended. The lines
 * are the core's progress renderer's (the CLI shows the same), redacted before they are cut to
 * length, one `info` line each so the runner shows them as they come.
 */
export function createStepLog(io: Pick<ActionIo, "info">, redact: (text: string) => string): StepLog {
  let pending = "";
  const write = (text: string): void => {
    pending += text;
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) io.info(redact(line));
  };
  const renderer = createProgressRenderer(write, { isStreaming: false, redact });
  return {
    onEvent: renderer.onEvent,
    flush: () => {
      if (pending !== "") io.info(redact(pending));
      pending = "";
    },
  };
}
