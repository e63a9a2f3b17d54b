import { z } from "zod";

/** A delivery accepted for triage: everything needed to triage it again after a restart. */
export interface JournaledDelivery {
  /** The delivery id (`X-GitHub-Delivery`). */
  readonly id: string;
  /** The event name as GitHub sends it, without the action (`issue_comment`). */
  readonly name: string;
  readonly payload: unknown;
  readonly receivedAt: number;
}

const admittedSchema = z.object({
  kind: z.literal("admitted"),
  id: z.string().min(1),
  name: z.string().min(1),
  payload: z.unknown(),
  receivedAt: z.number(),
});

const settledSchema = z.object({
  kind: z.literal("settled"),
  id: z.string().min(1),
  at: z.number(),
});

const recordSchema = z.discriminatedUnion("kind", [admittedSchema, settledSchema]);

export type JournalRecord = z.output<typeof recordSchema>;

export function admittedLine(delivery: JournaledDelivery): string {
  return `${JSON.stringify({ kind: "admitted", ...delivery })}\n`;
}

export function settledLine(id: string, at: number): string {
  return `${JSON.stringify({ kind: "settled", id, at })}\n`;
}

export interface ReadJournal {
  /** Admitted and not settled, in the order they arrived. */
  readonly pending: Map<string, JournaledDelivery>;
  /** Settled delivery ids with when they were settled, for telling a redelivery. */
  readonly settled: Map<string, number>;
  /** Lines that did not parse; a torn last line (a write the crash cut short) is not counted. */
  readonly damagedLines: number;
}

/**
 * Reads the journal's text. The records end at the first zero byte (the space written ahead; a
 * record never holds one, JSON escapes it). The last line is only complete when it ends with a
 * newline: a crash during a write leaves a torn line that was never acknowledged, so it is dropped.
 */
export function readJournalText(text: string): ReadJournal {
  const pending = new Map<string, JournaledDelivery>();
  const settled = new Map<string, number>();
  let damagedLines = 0;
  const end = text.indexOf("\0");
  const lines = (end === -1 ? text : text.slice(0, end)).split("\n");
  // The element after the last newline is "" or a torn write.
  lines.pop();
  for (const line of lines) {
    if (line.trim() === "") continue;
    const parsed = parseRecord(line);
    if (!parsed.success) {
      damagedLines += 1;
      continue;
    }
    const record = parsed.value;
    if (record.kind === "admitted") {
      if (!settled.has(record.id))
        pending.set(record.id, {
          id: record.id,
          name: record.name,
          payload: record.payload,
          receivedAt: record.receivedAt,
        });
    } else {
      pending.delete(record.id);
      settled.set(record.id, record.at);
    }
  }
  return { pending, settled, damagedLines };
}

function parseRecord(
  line: string,
):
  | { readonly success: true; readonly value: JournalRecord }
  | { readonly success: false; readonly error: string } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return { success: false, error: error instanceof Error ? error.message : String(error) };
  }
  const result = recordSchema.safeParse(value);
  return result.success
    ? { success: true, value: result.data }
    : { success: false, error: result.error.message };
}
