import { mkdir, open, readFile, rename, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { QueueError } from "./queue-error.js";
import {
  admittedLine,
  readJournalText,
  settledLine,
  type JournaledDelivery,
} from "./intake-journal-records.js";

export type { JournaledDelivery, PayloadJson } from "./intake-journal-records.js";
export { parseJournaledPayload, toPayloadJson } from "./intake-journal-records.js";

export const INTAKE_JOURNAL_FILE_NAME = "intake-journal.jsonl";

export interface IntakeJournalOptions {
  readonly filePath: string;
  /** Past this size the journal is rewritten with only what is still needed. */
  readonly compactAtBytes?: number;
  /** Settled ids are remembered this long, so a redelivery is told apart without a GitHub call. */
  readonly retentionMs?: number;
  readonly now?: () => number;
  /** Space written ahead of the records (zeros), so a record's sync flushes no file-size change. */
  readonly allocateBytes?: number;
}

export interface IntakeJournalStats {
  /** Records written (admissions and settlements). */
  readonly records: number;
  /**
   * Writes that ended in a data sync; fewer than records when deliveries shared a flush, and
   * settlements never start one of their own.
   */
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
const DEFAULT_ALLOCATE_BYTES = 4 * 1024 * 1024;
const THREE_DAYS_MS = 3 * 24 * 60 * 60 * 1000;

interface Entry {
  readonly line: string;
  /** Resolve only once the line is on disk (an admission); a settlement resolves once written. */
  readonly durable: boolean;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

/**
 * Opens (creating it private to its owner) an append-only journal with group commit: records
 * that arrive while a data sync is in flight are written and synced together by the next one,
 * so N concurrent deliveries cost one `fdatasync`, not N. Writes and syncs run on libuv's thread
 * pool: unlike a synchronous SQLite commit (4–20 ms here), a sync never blocks the event loop
 * that answers the other webhooks. One process owns a journal file.
 *
 * Two things keep a sync short. The file's space is written ahead as zeros and records overwrite
 * it in place, so a sync carries the records' pages and no change of the file's size (on ext4 an
 * append's `fdatasync` also commits the filesystem journal). The reader stops at the first zero
 * byte; a clean close cuts the zeros off. And a settlement is written without a sync of its own:
 * it reaches the disk with the next admission's sync, and one lost in a power cut only means the
 * delivery is triaged again (triage is idempotent by delivery id).
 */
export async function openIntakeJournal(options: IntakeJournalOptions): Promise<IntakeJournal> {
  const now = options.now ?? Date.now;
  const compactAtBytes = options.compactAtBytes ?? DEFAULT_COMPACT_AT_BYTES;
  const retentionMs = options.retentionMs ?? THREE_DAYS_MS;
  const allocateBytes = options.allocateBytes ?? DEFAULT_ALLOCATE_BYTES;
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
  /** Where the next record goes, and where the space written ahead ends. */
  let position = 0;
  let allocated = 0;
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

  /**
   * Rewrites the journal with the pending admissions and the recent settlements, atomically,
   * with space written ahead after them.
   */
  async function compact(): Promise<FileHandle> {
    const cutoff = now() - retentionMs;
    for (const [id, at] of settled) if (at < cutoff) settled.delete(id);
    const lines = [...pending.values()].map(admittedLine);
    for (const [id, at] of settled) lines.push(settledLine(id, at));
    const temporary = `${filePath}.compact`;
    const fresh = await open(temporary, "w+", 0o600);
    try {
      const kept = Buffer.from(lines.join(""));
      await writeAll(fresh, kept, 0);
      position = kept.length;
      allocated = position;
      await allocate(fresh, 1);
      await fresh.datasync();
      await rename(temporary, filePath);
      await syncDirectory(path.dirname(filePath));
    } catch (error) {
      await fresh.close();
      throw error;
    }
    bytesWritten = 0;
    return fresh;
  }

  /** Writes zeros ahead until `needed` more bytes fit after `position`; synced by the next sync. */
  async function allocate(target: FileHandle, needed: number): Promise<void> {
    while (allocated < position + needed) {
      const zeros = Buffer.alloc(allocateBytes);
      await writeAll(target, zeros, allocated);
      allocated += zeros.length;
    }
  }

  async function drain(): Promise<void> {
    while (waiting.length > 0) {
      const batch = waiting;
      waiting = [];
      try {
        const buffer = Buffer.from(batch.map((entry) => entry.line).join(""));
        await allocate(handle, buffer.length);
        await writeAll(handle, buffer, position);
        position += buffer.length;
        if (batch.some((entry) => entry.durable)) {
          await handle.datasync();
          flushes += 1;
        }
        bytesWritten += buffer.length;
        records += batch.length;
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

  function append(line: string, durable: boolean): Promise<void> {
    if (isClosed)
      return Promise.reject(new QueueError("QUEUE_CLOSED", "cannot write: the intake journal is closed"));
    return new Promise<void>((resolve, reject) => {
      waiting.push({ line, durable, resolve, reject });
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
      const durable = append(admittedLine(delivery), true);
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
      await append(settledLine(id, at), false);
    },
    pending: () => [...pending.values()],
    stats: () => ({ records, flushes, pending: pending.size, damagedLines: read.damagedLines }),
    async close() {
      if (isClosed) return;
      isClosed = true;
      await writer;
      try {
        // Settlements written since the last sync, and no zeros left for a reader to skip.
        await handle.truncate(position);
        await handle.datasync();
      } finally {
        await handle.close();
      }
    },
  };
}

async function writeAll(handle: FileHandle, buffer: Buffer, at: number): Promise<void> {
  let offset = 0;
  while (offset < buffer.length) {
    const { bytesWritten } = await handle.write(buffer, offset, buffer.length - offset, at + offset);
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
