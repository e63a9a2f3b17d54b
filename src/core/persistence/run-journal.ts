import { z } from "zod";
import type { CompletedToolCall } from "./run-checkpoint.js";
import { completedToolCallSchema } from "./run-checkpoint.js";
import type { JsonLinesContent } from "./json-lines.js";
import { PersistenceError } from "./persistence-error.js";
import type { SchemaSpec } from "./schema-version.js";
import { checkSchemaTag, schemaTag } from "./schema-version.js";

/**
 * The per-run journal: a JSON Lines file whose first line is a header and whose other lines say
 * that a tool call started or completed. "started" is flushed to disk before the tool runs and
 * "completed" after it returns, so after a crash a call is in exactly one of three states:
 * never started (safe to run), completed (reuse the result) or started only (interrupted:
 * effects unknown). The runner marks only calls that may have effects as started: a read-only
 * call without a result is run again, which is safe.
 */
export const JOURNAL_SCHEMA: SchemaSpec = { kind: "journal", version: 1 };

export function journalHeader(runId: string, now: Date): Record<string, unknown> {
  return { schema: schemaTag(JOURNAL_SCHEMA), runId, createdAt: now.toISOString() };
}

const startedEntrySchema = z.object({
  type: z.literal("tool-call-started"),
  callId: z.string(),
  name: z.string().exactOptional(),
  at: z.string(),
});

const completedEntrySchema = z.object({
  type: z.literal("tool-call-completed"),
  callId: z.string(),
  at: z.string(),
  call: completedToolCallSchema,
});

const entrySchema = z.discriminatedUnion("type", [startedEntrySchema, completedEntrySchema]);

export interface RunJournal {
  readonly startedCallIds: ReadonlySet<string>;
  readonly completedToolCalls: Readonly<Record<string, CompletedToolCall>>;
  /** Lines that could not be used (a torn last line, an entry of an unknown shape). */
  readonly problems: readonly string[];
}

export const EMPTY_JOURNAL: RunJournal = { startedCallIds: new Set(), completedToolCalls: {}, problems: [] };

export function interpretJournal(content: JsonLinesContent, file: string): RunJournal {
  const [header, ...entries] = content.values;
  const problems: string[] = content.invalidLines.map(
    (line) => `${file}:${line.lineNumber}: not JSON (${line.reason})`,
  );
  if (content.truncatedLastLine) {
    // Expected after a crash while writing a marker; the call it described is handled as
    // interrupted (if "completed" was torn) or never started (if "started" was torn).
    problems.push(`${file}:${content.truncatedLastLine.lineNumber}: torn last line ignored`);
  }
  if (header === undefined) return { ...EMPTY_JOURNAL, problems };
  checkSchemaTag(header, JOURNAL_SCHEMA, file);
  const startedCallIds = new Set<string>();
  const completedToolCalls: Record<string, CompletedToolCall> = {};
  entries.forEach((value, index) => {
    const parsed = entrySchema.safeParse(value);
    if (!parsed.success) {
      problems.push(`${file}: entry ${index + 1} has an unknown shape and was ignored`);
      return;
    }
    const entry = parsed.data;
    if (entry.type === "tool-call-started") startedCallIds.add(entry.callId);
    else {
      startedCallIds.add(entry.callId);
      completedToolCalls[entry.callId] = entry.call;
    }
  });
  return { startedCallIds, completedToolCalls, problems };
}

export function assertCallId(callId: string): void {
  // Call ids come from the model provider; they are stored as data, never used in a path.
  if (callId.length === 0 || callId.length > 512) {
    throw new PersistenceError("INVALID_ID", `a tool call id must have 1 to 512 characters`);
  }
}
