import { read, readSync } from "node:fs";
import type { FileHandle } from "node:fs/promises";

/**
 * The first `limit` bytes of an open file at most, read from its start until the end or the
 * limit: a file that grows while it is read cannot make a read unbounded. `sizeHint` (its size as
 * last seen, plus one to notice growth) sizes the first buffer; it grows as needed up to `limit`.
 */
export async function readUpTo(
  source: FileHandle | number,
  limit: number,
  sizeHint = limit,
): Promise<Buffer> {
  const readAt =
    typeof source === "number"
      ? (buffer: Buffer, offset: number): Promise<number> =>
          new Promise((resolve, reject) => {
            read(source, buffer, offset, buffer.length - offset, offset, (error, bytes) =>
              error ? reject(error) : resolve(bytes),
            );
          })
      : async (buffer: Buffer, offset: number): Promise<number> =>
          (await source.read(buffer, offset, buffer.length - offset, offset)).bytesRead;
  if (limit <= 0) return Buffer.alloc(0);
  let buffer: Buffer = Buffer.allocUnsafe(firstCapacity(limit, sizeHint));
  let filled = 0;
  for (;;) {
    const bytes = await readAt(buffer, filled);
    if (bytes === 0) break;
    filled += bytes;
    if (filled === limit) break;
    if (filled === buffer.length) buffer = grown(buffer, limit);
  }
  return buffer.subarray(0, filled);
}

/** The same, synchronously: for small files, where a thread-pool round trip costs more than the read. */
export function readUpToSync(descriptor: number, limit: number, sizeHint = limit): Buffer {
  if (limit <= 0) return Buffer.alloc(0);
  let buffer: Buffer = Buffer.allocUnsafe(firstCapacity(limit, sizeHint));
  let filled = 0;
  for (;;) {
    const bytes = readSync(descriptor, buffer, filled, buffer.length - filled, filled);
    if (bytes === 0) break;
    filled += bytes;
    if (filled === limit) break;
    if (filled === buffer.length) buffer = grown(buffer, limit);
  }
  return buffer.subarray(0, filled);
}

function firstCapacity(limit: number, sizeHint: number): number {
  return Math.max(1, Math.min(limit, sizeHint));
}

function grown(buffer: Buffer, limit: number): Buffer {
  const next = Buffer.allocUnsafe(Math.min(limit, buffer.length * 2));
  buffer.copy(next);
  return next;
}
