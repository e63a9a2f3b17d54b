import { z } from "zod";

declare const payloadJsonBrand: unique symbol;

/**
 * A payload as JSON text that is known to parse: the text a delivery's body was verified and
 * parsed from (`create-webhook-guard.ts`), or `toPayloadJson` of a value. The journal writes it
 * into its line as it is, so only text made one of those two ways may carry this type.
 */
export type PayloadJson = string & { readonly [payloadJsonBrand]: true };

/** The JSON text of a payload that arrived as a value (a Probot context, a journal read back). */
export function toPayloadJson(payload: unknown): PayloadJson {
  return JSON.stringify(payload) as PayloadJson;
}

/**
 * A delivery accepted for triage: everything needed to triage it again after a restart. Its
 * payload stays text until triage parses it: the text is what the journal writes and what crosses
 * from the intake thread to the main thread (a copy of one string, where a parsed payload was a
 * structured clone of thousands of objects), and a delivery waiting for its turn holds one string
 * rather than an object tree the garbage collector keeps walking.
 */
export interface JournaledDelivery {
  /** The delivery id (`X-GitHub-Delivery`). */
  readonly id: string;
  /** The event name as GitHub sends it, without the action (`issue_comment`). */
  readonly name: string;
  readonly payloadJson: PayloadJson;
  readonly receivedAt: number;
}

/** A delivery's payload, parsed from its text. */
export function parseJournaledPayload(delivery: JournaledDelivery): unknown {
  return JSON.parse(delivery.payloadJson) as unknown;
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

/**
 * The record of an admission, one line. The payload's text goes in as it is, not parsed and
 * written again: JSON text is a valid JSON value wherever a value goes, and it holds a line break
 * only as whitespace between tokens (one inside a string is written `\n`), so a line break there
 * becomes a space and the line parses to the same payload.
 */
export function admittedLine(delivery: JournaledDelivery): string {
  const { id, name, receivedAt, payloadJson } = delivery;
  const head = JSON.stringify({ kind: "admitted", id, name, receivedAt });
  const payload = LINE_BREAK.test(payloadJson) ? payloadJson.replace(LINE_BREAKS, " ") : payloadJson;
  return `${head.slice(0, -1)},"payload":${payload}}\n`;
}

const LINE_BREAK = /[\r\n]/;
const LINE_BREAKS = /[\r\n]/g;

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
          payloadJson: toPayloadJson(record.payload),
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
