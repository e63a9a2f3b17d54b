import { readFile } from "node:fs/promises";
import { TRACE_SCHEMA, type TraceEvent, type TraceFooter, type TraceHeader } from "./trace-format.js";

export interface ParsedTrace {
  readonly header: TraceHeader;
  readonly events: readonly TraceEvent[];
  /** Null when the run crashed or is still going. */
  readonly footer: TraceFooter | null;
  /** Lines that could not be read (a crash can cut the last one). */
  readonly problems: readonly string[];
}

export type ReadTraceResult =
  | { readonly success: true; readonly value: ParsedTrace }
  | { readonly success: false; readonly error: string };

export async function readTraceFile(path: string): Promise<ReadTraceResult> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = error instanceof Error && "code" in error ? String(error.code) : "unknown";
    return { success: false, error: `Cannot read the trace ${path} (${code}). Check the path.` };
  }
  return parseTrace(text, path);
}

/** Reads a trace; a cut last line is reported, not fatal. A newer schema is refused. */
export function parseTrace(text: string, label = "trace"): ReadTraceResult {
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  const problems: string[] = [];
  let header: TraceHeader | null = null;
  let footer: TraceFooter | null = null;
  const events: TraceEvent[] = [];
  lines.forEach((line, index) => {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      problems.push(
        `line ${index + 1}: not JSON (${error instanceof Error ? error.message : "unknown"})${index === lines.length - 1 ? " — the run was probably cut off here" : ""}`,
      );
      return;
    }
    if (value === null || typeof value !== "object") {
      problems.push(`line ${index + 1}: not an object`);
      return;
    }
    const record = (value as { record?: unknown }).record;
    if (record === "header") {
      if (header === null) header = value as TraceHeader;
    } else if (record === "footer") footer = value as TraceFooter;
    else if (record === "event") events.push(value as TraceEvent);
    else problems.push(`line ${index + 1}: unknown record type`);
  });
  if (header === null)
    return { success: false, error: `${label} has no header line; it is not an agentforge trace.` };
  const schema = (header as TraceHeader).schema as string;
  if (schema !== TRACE_SCHEMA) {
    return {
      success: false,
      error: `${label} uses schema "${schema}"; this version of agentforge reads "${TRACE_SCHEMA}". Upgrade agentforge to read it.`,
    };
  }
  return { success: true, value: { header, events, footer, problems } };
}
