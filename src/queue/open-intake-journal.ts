import { mkdir, open, readFile, rename, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { QueueError } from "./queue-error.js";
import {
  admittedLine,
  readJournalText,
  settledLine,
  type JournaledDelivery,
} from "./intake-journal-records.js";

export type { JournaledDelivery } from "./intake-journal-records.js";

export const INTAKE_JOURNAL_FILE_NAME = "intake-journal.jsonl";

export interface IntakeJournalOptions {
  readonly filePath: string;
  /** Past this size the journal is rewritten with only what is still needed. */
  readonly compactAtBytes?: number;
  /** Settled ids are remembered this long, so a redelivery is told apart without a GitHub call. */
  readonly retentionMs?: number;
  readonly now?: () => number;
}

export interface IntakeJournalStats {
  /** Records written (admissions and settlements). */
  readonly records: number;
  /** Writes that ended in a data sync; fewer than records when deliveries shared a flush. */
  readonly flushes: number;
  readonly pending: number;
  /** Lines found unreadable when the journal was opened (a torn last write is not one). */
  readonly damagedLines: number;
}

/**
 * The durable record of deliveries accepted for triage, so a webhook can be answered before the
 * GitHub round trips triage makes. A delivery is admitted (its answer waits for the data sync) and
 * later settled (triaged: a task enqueued, a reply posted, or nothing to do).
 */
export interface IntakeJournal {
  /**
   * Resolves once the delivery is on disk: true for a new delivery, false for one already
   * journaled (a redelivery, answered without triage).
   */
  admit(delivery: JournaledDelivery): Promise<boolean>;
  /** Triage is done. A settlement lost in a crash only means the delivery is triaged again. */
  settle(id: string): Promise<void>;
  /** Admitted and not settled: what triage must still do, e.g. after a restart. */
  pending(): readonly JournaledDelivery[];
  stats(): IntakeJournalStats;
  close(): Promise<void>;
}

const DEFAULT_COMPACT_AT_BYTES = 16 * 1024 * 1024;
const THREE_DAYS_MS = 3 * 24 * 60 * 60 * 1000;

interface Entry {
  readonly line: string;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

/**
 * Opens (creating it private to its owner) an append-only journal with group commit: records
 * that arrive while a data sync is in flight are written and synced together by the next one,
 * so N concurrent deliveries cost one `fdatasync`, not N. Writes and syncs run on libuv's thread
 * pool: unlike a synchronous SQLite commit (4–20 ms here), a sync never blocks the event loop
 * that answers the other webhooks. One process owns a journal file.
 */
export async function openIntakeJournal(options: IntakeJournalOptions): Promise<IntakeJournal> {
  const now = options.now ?? Date.now;
  const compactAtBytes = options.compactAtBytes ?? DEFAULT_COMPACT_AT_BYTES;
  const retentionMs = options.retentionMs ?? THREE_DAYS_MS;
  const filePath = options.filePath;
  let read: ReturnType<typeof readJournalText>;
  try {
    await mkdir(path.dirname(filePath), { recursive: true, mode: 0o700 });
    read = readJournalText(await readFile(filePath, "utf8").catch(ignoreMissing));
  } catch (error) {
    throw storeFailed(`could not read the intake journal ${filePath}`, error);
  }
  const { pending, settled } = read;
  /** Admitted ids whose record is not on disk yet: a redelivery waits for the first copy. */
  const inFlight = new Map<string, Promise<void>>();
  let bytesWritten = 0;
  let handle: FileHandle;
  try {
    handle = await compact();
  } catch (error) {
    throw storeFailed(`could not rewrite the intake journal ${filePath}`, error);
  }
  let records = 0;
  let flushes = 0;
  let waiting: Entry[] = [];
  let writer: Promise<void> | null = null;
  let isClosed = false;

  /** Rewrites the journal with the pending admissions and the recent settlements, atomically. */
  async function compact(): Promise<FileHandle> {
    const cutoff = now() - retentionMs;
    for (const [id, at] of settled) if (at < cutoff) settled.delete(id);
    const lines = [...pending.values()].map(admittedLine);
    for (const [id, at] of settled) lines.push(settledLine(id, at));
    const temporary = `${filePath}.compact`;
    const fresh = await open(temporary, "w", 0o600);
    try {
      await writeAll(fresh, Buffer.from(lines.join("")));
      await fresh.datasync();
    } finally {
      await fresh.close();
    }
    await rename(temporary, filePath);
    await syncDirectory(path.dirname(filePath));
    bytesWritten = 0;
    return open(filePath, "a", 0o600);
  }

  async function drain(): Promise<void> {
    while (waiting.length > 0) {
      const batch = waiting;
      waiting = [];
      try {
        const buffer = Buffer.from(batch.map((entry) => entry.line).join(""));
        await writeAll(handle, buffer);
        await handle.datasync();
        bytesWritten += buffer.length;
        records += batch.length;
        flushes += 1;
        for (const entry of batch) entry.resolve();
        if (bytesWritten > compactAtBytes) {
          await handle.close();
          handle = await compact();
        }
      } catch (error) {
        const failure = storeFailed(`could not write the intake journal ${filePath}`, error);
        for (const entry of batch) entry.reject(failure);
      }
    }
    writer = null;
  }

  function append(line: string): Promise<void> {
    if (isClosed)
      return Promise.reject(new QueueError("QUEUE_CLOSED", "cannot write: the intake journal is closed"));
    return new Promise<void>((resolve, reject) => {
      waiting.push({ line, resolve, reject });
      // One turn of the event loop lets deliveries read in the same turn join this write.
      writer ??= new Promise<void>((next) => setImmediate(next)).then(drain);
    });
  }

  return {
    async admit(delivery) {
      const earlier = inFlight.get(delivery.id);
      if (earlier !== undefined) return earlier.then(() => false);
      if (pending.has(delivery.id) || settled.has(delivery.id)) return false;
      pending.set(delivery.id, delivery);
      const durable = append(admittedLine(delivery));
      inFlight.set(delivery.id, durable);
      try {
        await durable;
      } catch (error) {
        pending.delete(delivery.id);
        throw error;
      } finally {
        inFlight.delete(delivery.id);
      }
      return true;
    },
    async settle(id) {
      if (!pending.delete(id)) return;
      const at = now();
      settled.set(id, at);
      await append(settledLine(id, at));
    },
    pending: () => [...pending.values()],
    stats: () => ({ records, flushes, pending: pending.size, damagedLines: read.damagedLines }),
    async close() {
      if (isClosed) return;
      isClosed = true;
      await writer;
      await handle.close();
    },
  };
}

async function writeAll(handle: FileHandle, buffer: Buffer): Promise<void> {
  let offset = 0;
  while (offset < buffer.length) {
    const { bytesWritten } = await handle.write(buffer, offset);
    offset += bytesWritten;
  }
}

/** A rename is durable once the directory holding it is synced. */
async function syncDirectory(directory: string): Promise<void> {
  const handle = await open(directory, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function ignoreMissing(error: unknown): string {
  if ((error as NodeJS.ErrnoException).code === "ENOENT") return "";
  throw error;
}

function storeFailed(message: string, error: unknown): QueueError {
  const reason = error instanceof Error ? error.message : String(error);
  return new QueueError("STORE_FAILED", `${message}: ${reason}`, { cause: error });
}
