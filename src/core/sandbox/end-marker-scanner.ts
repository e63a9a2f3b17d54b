const EMPTY = Buffer.alloc(0);

/**
 * Splits a long-lived output stream at a marker: what comes before it belongs to the current
 * command. A marker cut across two chunks is still found, because the last bytes that could start
 * it are held back until the next chunk.
 */
export class EndMarkerScanner {
  private held: Buffer = EMPTY;
  private found = false;

  constructor(private readonly marker: Buffer) {}

  get isDone(): boolean {
    return this.found;
  }

  /** The bytes held back, when the stream ends without a marker (the sandbox died). */
  flush(): Buffer {
    const held = this.held;
    this.held = EMPTY;
    return this.found ? EMPTY : held;
  }

  /** Returns the bytes that surely precede the marker; nothing once it was seen. */
  push(chunk: Buffer): Buffer {
    if (this.found) return EMPTY;
    const joined = this.held.length === 0 ? chunk : Buffer.concat([this.held, chunk]);
    const at = joined.indexOf(this.marker);
    if (at >= 0) {
      this.found = true;
      this.held = EMPTY;
      return joined.subarray(0, at);
    }
    const keep = Math.min(joined.length, this.marker.length - 1);
    this.held = Buffer.from(joined.subarray(joined.length - keep));
    return joined.subarray(0, joined.length - keep);
  }
}
