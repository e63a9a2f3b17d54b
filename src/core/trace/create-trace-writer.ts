import { closeSync, fsyncSync, mkdirSync, openSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import type { LoopEvent } from "../loop/loop-events.js";
import { eventAttributes } from "./event-attributes.js";
import type { TraceFooter, TraceHeader, TraceLine } from "./trace-format.js";

/** Events after which the trace is flushed to disk. */
const FLUSH_AFTER = new Set([
  "tool-call-start",
  "tool-call-end",
  "model-call-end",
  "run-finished",
  "run-resumed",
]);

export interface TraceWriter {
  readonly path: string;
  /** Subscribe this to the loop's events. */
  onEvent(event: LoopEvent): void;
  /** Records an event that does not come from the loop (run-resumed, setup-finished...). */
  record(eventType: string, step: number, attributes: Record<string, unknown>): void;
  close(footer: Omit<TraceFooter, "record" | "finish_time">): void;
}

export interface TraceWriterOptions {
  readonly path: string;
  /** Written only when the file is new; a resumed run appends to the same story. */
  readonly header: Omit<TraceHeader, "record" | "schema"> & { readonly schema?: TraceHeader["schema"] };
  /** Every line passes through redaction before it reaches the disk. */
  readonly redact: (text: string) => string;
  readonly append?: boolean;
  readonly now?: () => Date;
}

/**
 * Appends one JSON line per event with fsync, so a crash leaves a readable prefix. Every string in
 * a line (keys included) passes the redactor, so no field can carry a secret past the gate.
 */
export function createTraceWriter(options: TraceWriterOptions): TraceWriter {
  const now = options.now ?? (() => new Date());
  mkdirSync(dirname(options.path), { recursive: true, mode: 0o700 });
  const fd = openSync(options.path, options.append ? "a" : "w", 0o600);
  let closed = false;
  // Every line reaches the file at once (a killed process loses nothing written); the disk flush
  // waits for the lines that end a step, so a machine crash loses at most the step in progress.
  const write = (line: TraceLine): void => {
    if (closed) return;
    writeSync(fd, `${JSON.stringify(redactStrings(line, options.redact))}\n`);
    if (line.record !== "event" || FLUSH_AFTER.has(line.event_type)) fsyncSync(fd);
  };
  if (!options.append) write({ record: "header", schema: "agentforge-trace/1", ...options.header });
  return {
    path: options.path,
    onEvent(event) {
      const attributes = eventAttributes(event);
      if (attributes === null) return;
      write({
        record: "event",
        event_type: event.type,
        step: event.turn,
        timestamp: now().toISOString(),
        attributes,
      });
    },
    record(eventType, step, attributes) {
      write({ record: "event", event_type: eventType, step, timestamp: now().toISOString(), attributes });
    },
    close(footer) {
      write({ record: "footer", finish_time: now().toISOString(), ...footer });
      closed = true;
      closeSync(fd);
    },
  };
}

function redactStrings(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === "string") return redact(value);
  if (Array.isArray(value)) return value.map((item) => redactStrings(item, redact));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [redact(key), redactStrings(inner, redact)]),
    );
  }
  return value;
}
