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
 * Appends one JSON line per event, so a crash leaves a readable prefix. Every string that can carry
 * content — attribute values, attribute names, the header and footer fields — passes the redactor,
 * so no field can carry a secret past the gate. The fields the writer itself makes (the record
 * kind, the step number and the timestamp from its own clock) are not content and are not scanned.
 *
 * Each line reaches the file before the loop goes on (a killed process loses nothing written);
 * the disk flush runs in the background, shared by the lines written meanwhile, and `close` waits
 * for it (see createGroupCommitLog).
 */
export function createTraceWriter(options: TraceWriterOptions): TraceWriter {
  const now = options.now ?? (() => new Date());
  // Lines of one millisecond share their timestamp text (a turn writes about nine).
  let lastMillis = Number.NaN;
  let lastStamp = "";
  const timestamp = (): string => {
    if (options.now) return options.now().toISOString();
    const millis = Date.now();
    if (millis !== lastMillis) {
      lastMillis = millis;
      lastStamp = new Date(millis).toISOString();
    }
    return lastStamp;
  };
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
  const writeEvent = (eventType: string, step: number, attributes: Record<string, unknown>): void => {
    if (closed) return;
    log.append({
      record: "event",
      event_type: options.redact(eventType),
      step,
      timestamp: timestamp(),
      attributes: redactStrings(attributes, options.redact),
    });
  };
  if (needsHeader) write({ record: "header", schema: "agentforge-trace/1", ...options.header });
  return {
    path: options.path,
    onEvent(event) {
      const attributes = eventAttributes(event);
      if (attributes === null) return;
      writeEvent(event.type, event.turn, attributes);
    },
    record(eventType, step, attributes) {
      writeEvent(eventType, step, attributes);
    },
    async close(footer) {
      if (!closed) {
        const content = redactStrings(footer, options.redact) as typeof footer;
        log.append({ record: "footer", finish_time: now().toISOString(), ...content });
      }
      closed = true;
      await log.close();
    },
  };
}

function redactStrings(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === "string") return redact(value);
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((item) => redactStrings(item, redact));
  // A plain object (an object without a prototype is a slow dictionary to V8 and to JSON.stringify);
  // a "__proto__" key is defined as an ordinary property, so it is written like any other.
  const copy: Record<string, unknown> = {};
  for (const key in value) {
    if (Object.hasOwn(value, key)) {
      const name = redact(key);
      const item = redactStrings((value as Record<string, unknown>)[key], redact);
      if (name === "__proto__") {
        Object.defineProperty(copy, name, {
          value: item,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      } else copy[name] = item;
    }
  }
  return copy;
}

function isMissingOrEmpty(path: string): boolean {
  try {
    return statSync(path).size === 0;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return true;
    throw error;
  }
}
