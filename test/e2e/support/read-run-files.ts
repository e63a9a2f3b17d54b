import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** The run ids under `<dataDir>/runs/`, as `agentforge run --resume` expects them. */
export function listRunIds(dataDir: string): string[] {
  return readdirSync(join(dataDir, "runs"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
}

export interface TraceRecord {
  readonly record: "header" | "event" | "footer";
  readonly event_type?: string;
  readonly step?: number;
  readonly attributes?: Record<string, unknown>;
  readonly [key: string]: unknown;
}

/** Every line of a JSON Lines trace; throws on a line that is not JSON, since none may be cut here. */
export function readTraceRecords(path: string): TraceRecord[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as TraceRecord);
}

export function eventsOfType(records: readonly TraceRecord[], type: string): TraceRecord[] {
  return records.filter((record) => record.record === "event" && record.event_type === type);
}

/** How many times the trace saw each tool call start, by call id. */
export function toolStartsById(records: readonly TraceRecord[]): Map<string, number> {
  return countById(records, "tool-call-start");
}

/** How many times the trace tells each tool call's end, by call id. */
export function toolEndsById(records: readonly TraceRecord[]): Map<string, number> {
  return countById(records, "tool-call-end");
}

function countById(records: readonly TraceRecord[], type: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const record of eventsOfType(records, type)) {
    const id = String(record.attributes?.["tool_call.id"]);
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}
