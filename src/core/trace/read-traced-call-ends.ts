import { readTraceFile } from "./read-trace.js";

/**
 * The ids of the tool calls whose end a trace already tells for one turn (step). A resumed run
 * replays the calls that finished after its last checkpoint; those the crashed process had
 * already traced are not told twice. A missing or unreadable trace tells none.
 */
export async function readTracedCallEnds(path: string, turn: number): Promise<ReadonlySet<string>> {
  const parsed = await readTraceFile(path);
  if (!parsed.success) return new Set();
  const ids = new Set<string>();
  for (const event of parsed.value.events) {
    if (event.event_type !== "tool-call-end" || event.step !== turn) continue;
    const id = event.attributes["tool_call.id"];
    if (typeof id === "string") ids.add(id);
  }
  return ids;
}
