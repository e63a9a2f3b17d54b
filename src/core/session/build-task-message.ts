import type { RunInput } from "../agent-run.js";
import type { Fence } from "../safety/create-fence.js";

/**
 * The first user message: the request of the authorized person, then every piece of outside text
 * (issue bodies, comments by others) fenced with its source, so it is read as data.
 */
export function buildTaskMessage(task: RunInput, fence: Fence): string {
  const parts = [task.prompt];
  for (const input of task.untrustedInputs ?? []) parts.push(fence.wrap(input.text, input.source));
  return parts.join("\n\n");
}
