import { closeSync, fdatasync, fstatSync, openSync, readSync } from "node:fs";
import { ioError, PersistenceError } from "./persistence-error.js";
import { serializeJsonLine, serializeJsonLineText } from "./json-lines.js";
import { PRIVATE_FILE_MODE } from "./resolve-data-dir.js";
import { writeAllSync } from "./write-file-atomic.js";

/**
 * An append-only JSON Lines log for the hot path of a run.
 *
 * Every `append` writes its line to the file before it returns (one synchronous write on a
 * descriptor held open), so a process that is killed at any moment loses nothing it appended. The
 * flush to the disk itself (fdatasync) runs in the background, at most `flushIntervalMs` after a
 * line was written, and is shared by every line written meanwhile (group commit): the loop never
 * waits for the disk. `flush()` waits until everything appended so far is on the disk; `close()`
 * flushes and releases the descriptor.
 *
 * What a power cut can lose is therefore the lines of the last flush interval, never a line in the
 * middle: the file is only appended to, and the reader treats an unterminated last line as torn.
 * Opening a log whose last line is torn ends that line first, so the next value starts cleanly.
 */
export interface GroupCommitLog {
  readonly path: string;
  /** Bytes appended through this handle since it was opened. */
  readonly bytesWritten: number;
  append(value: unknown): void;
  flush(): Promise<void>;
  close(): Promise<void>;
}

const NEWLINE = 0x0a;

export interface GroupCommitLogOptions {
  /** Start with an empty file instead of appending. */
  readonly truncate?: boolean;
  /** How long a written line may wait for the disk flush (default 20 ms). */
  readonly flushIntervalMs?: number;
  /**
   * false: lines appended in one turn of the event loop are gathered and written together right
   * after it (one write instead of one per line). A killed process can then lose the lines of the
   * moment it died. For logs read by people (traces); markers that must precede an action keep the
   * default, true.
   */
  readonly writeThrough?: boolean;
}

/** Gathered lines are written at once when they reach this many characters. */
const GATHER_LIMIT_CHARS = 64 * 1024;

const DEFAULT_FLUSH_INTERVAL_MS = 20;

export function createGroupCommitLog(path: string, options: GroupCommitLogOptions = {}): GroupCommitLog {
  const flushIntervalMs = options.flushIntervalMs ?? DEFAULT_FLUSH_INTERVAL_MS;
  let descriptor: number;
  try {
    descriptor = openSync(path, options.truncate === true ? "w+" : "a+", PRIVATE_FILE_MODE);
  } catch (error) {
    throw ioError("open log", path, error);
  }
  let needsNewline = false;
  try {
    const { size } = fstatSync(descriptor);
    if (size > 0) {
      const last = Buffer.alloc(1);
      readSync(descriptor, last, 0, 1, size - 1);
      needsNewline = last[0] !== NEWLINE;
    }
  } catch (error) {
    closeSync(descriptor);
    throw ioError("inspect log", path, error);
  }

  let bytesWritten = 0;
  let closed = false;
  /** Lines written since the flush in flight (or the last one) started. */
  let dirty = false;
  let flushing: Promise<void> | null = null;
  let flushError: Error | null = null;
  let timer: NodeJS.Timeout | null = null;
  const writeThrough = options.writeThrough ?? true;
  let gathered = "";
  let gatherScheduled = false;

  const writeOut = (bytes: Buffer): void => {
    try {
      writeAllSync(descriptor, bytes);
    } catch (error) {
      // Part of the line may be in the file: end it before the next value.
      needsNewline = true;
      throw ioError("append to", path, error);
    }
    needsNewline = false;
    bytesWritten += bytes.length;
    dirty = true;
    if (timer === null) {
      timer = setTimeout(() => {
        timer = null;
        void scheduleFlush();
      }, flushIntervalMs);
      // A pending flush never keeps the process alive; close() flushes what is left.
      timer.unref();
    }
  };

  const writeGathered = (): void => {
    gatherScheduled = false;
    if (gathered.length === 0) return;
    const bytes = Buffer.from(gathered, "utf8");
    gathered = "";
    try {
      writeOut(bytes);
    } catch (error) {
      // Nobody is waiting on a gathered write: keep the error for the next call on this log.
      flushError = error instanceof Error ? error : new Error(String(error));
    }
  };

  const syncOnce = (): Promise<void> =>
    new Promise((resolve, reject) => {
      fdatasync(descriptor, (error) => (error ? reject(ioError("flush log", path, error)) : resolve()));
    });

  /** Starts a flush unless one is running; a running one restarts itself while lines keep coming. */
  const scheduleFlush = (): Promise<void> => {
    if (flushing) return flushing;
    flushing = (async () => {
      try {
        while (dirty) {
          dirty = false;
          await syncOnce();
        }
      } catch (error) {
        flushError = error instanceof Error ? error : new Error(String(error));
        throw error;
      } finally {
        flushing = null;
      }
    })();
    // A background flush nobody awaits must not become an unhandled rejection; the error is kept
    // and reported by the next append, flush or close.
    flushing.catch(() => undefined);
    return flushing;
  };

  const failIfFlushFailed = (): void => {
    if (flushError !== null) {
      const error = flushError;
      flushError = null;
      throw error;
    }
  };

  return {
    path,
    get bytesWritten() {
      return bytesWritten;
    },
    append(value) {
      if (closed) throw new PersistenceError("IO_ERROR", `log ${path} is closed`, { path });
      failIfFlushFailed();
      if (writeThrough) {
        const line = serializeJsonLine(value);
        writeOut(needsNewline ? Buffer.concat([Buffer.from([NEWLINE]), line]) : line);
        return;
      }
      if (gathered.length === 0 && needsNewline) gathered = "\n";
      gathered += serializeJsonLineText(value);
      // The limit counts characters, not bytes: it only bounds how much waits in memory.
      if (gathered.length >= GATHER_LIMIT_CHARS) writeGathered();
      else if (!gatherScheduled) {
        gatherScheduled = true;
        setImmediate(writeGathered);
      }
    },
    async flush() {
      writeGathered();
      if (timer !== null) {
        clearTimeout(timer);
        timer = null;
      }
      failIfFlushFailed();
      if (flushing) await flushing;
      if (dirty) await scheduleFlush();
      failIfFlushFailed();
    },
    async close() {
      if (closed) return;
      try {
        await this.flush();
      } finally {
        closed = true;
        // A flush still running holds the descriptor; wait for it before closing.
        await flushing?.catch(() => undefined);
        closeSync(descriptor);
      }
    },
  };
}
