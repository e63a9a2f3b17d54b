import type { MockScript, MockStep } from "./mock-script.js";

interface QueuedStep {
  readonly step: MockStep;
  readonly index: number;
  remaining: number;
}

export interface StepQueue {
  /** The step for the next request to `model`, or undefined when the script has none left. */
  take(model: string): { readonly step: MockStep; readonly index: number } | undefined;
}

/** Steps with a `model` wait in that model's own line; the rest form one shared line. */
export function createStepQueue(script: MockScript): StepQueue {
  const shared: QueuedStep[] = [];
  const byModel = new Map<string, QueuedStep[]>();
  for (const [index, step] of script.steps.entries()) {
    const remaining = step.times === "forever" ? Number.POSITIVE_INFINITY : (step.times ?? 1);
    const queued = { step, index, remaining };
    if (step.model === undefined) {
      shared.push(queued);
      continue;
    }
    const line = byModel.get(step.model) ?? [];
    line.push(queued);
    byModel.set(step.model, line);
  }

  function takeFrom(line: QueuedStep[]): QueuedStep | undefined {
    const head = line[0];
    if (head === undefined) return undefined;
    head.remaining -= 1;
    if (head.remaining <= 0) line.shift();
    return head;
  }

  return {
    take(model) {
      const queued = takeFrom(byModel.get(model) ?? []) ?? takeFrom(shared);
      return queued === undefined ? undefined : { step: queued.step, index: queued.index };
    },
  };
}
