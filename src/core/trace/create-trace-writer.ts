import { mkdirSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { createGroupCommitLog } from "../persistence/create-group-commit-log.js";
import type { LoopEvent } from "../loop/loop-events.js";
import { eventAttributes } from "./event-attributes.js";
import type { TraceFooter, TraceHeader, TraceLine } from "./trace-format.js";

export interface TraceWriter {
  readonly path: string;
  /** Subscribe this to the loop's events. */
  onEvent(event: LoopEvent): void;
  /** Records an event that does not come from the loop (run-resumed, setup-finished...). */
  record(eventType: string, step: number, attributes: Record<string, unknown>): void;
  /** Writes the footer and waits until the whole trace is on the disk. */
  close(footer: Omit<TraceFooter, "record" | "finish_time">): Promise<void>;
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
 * Appends one JSON line per event, so a crash leaves a readable prefix. Every string in a line
 * (keys included) passes the redactor, so no field can carry a secret past the gate.
 *
 * Each line reaches the file before the loop goes on (a killed process loses nothing written);
 * the disk flush runs in the background, shared by the lines written meanwhile, and `close` waits
 * for it (see createGroupCommitLog).
 */
export function createTraceWriter(options: TraceWriterOptions): TraceWriter {
  const now = options.now ?? (() => new Date());
  mkdirSync(dirname(options.path), { recursive: true, mode: 0o700 });
  // A new trace replaces whatever file was there; a resumed run appends to its story, and starts
  // one with a header when the story is not on this machine (a run continued elsewhere).
  const needsHeader = options.append !== true || isMissingOrEmpty(options.path);
  // Lines of one moment are written together: a trace is read by people, not replayed for resume.
  const log = createGroupCommitLog(options.path, { truncate: options.append !== true, writeThrough: false });
  let closed = false;
  const write = (line: TraceLine): void => {
    if (closed) return;
    log.append(redactStrings(line, options.redact));
  };
  if (needsHeader) write({ record: "header", schema: "agentforge-trace/1", ...options.header });
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
    async close(footer) {
      write({ record: "footer", finish_time: now().toISOString(), ...footer });
      closed = true;
      await log.close();
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

function isMissingOrEmpty(path: string): boolean {
  try {
    return statSync(path).size === 0;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return true;
    throw error;
  }
}
