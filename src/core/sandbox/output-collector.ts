/**
 * Keeps the head and the tail of a stream within a byte budget: the start of an output says what
 * ran, the end says how it finished (test summaries, stack traces), the middle is what gets cut.
 */
export class OutputCollector {
  private readonly headLimit: number;
  private readonly tailLimit: number;
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private droppedBytes = 0;
  totalBytes = 0;

  constructor(limitBytes: number) {
    this.headLimit = Math.ceil(limitBytes / 2);
    this.tailLimit = Math.floor(limitBytes / 2);
  }

  get isTruncated(): boolean {
    return this.droppedBytes > 0;
  }

  push(chunk: Buffer): void {
    this.totalBytes += chunk.length;
    let rest = chunk;
    if (this.headBytes < this.headLimit) {
      const taken = rest.subarray(0, this.headLimit - this.headBytes);
      this.head.push(taken);
      this.headBytes += taken.length;
      rest = rest.subarray(taken.length);
    }
    if (rest.length === 0) return;
    this.tail.push(rest);
    this.tailBytes += rest.length;
    this.trimTail();
  }

  private trimTail(): void {
    while (this.tailBytes > this.tailLimit) {
      const first = this.tail[0];
      if (first === undefined) return;
      const excess = this.tailBytes - this.tailLimit;
      if (first.length <= excess) {
        this.tail.shift();
        this.tailBytes -= first.length;
        this.droppedBytes += first.length;
      } else {
        this.tail[0] = first.subarray(excess);
        this.tailBytes -= excess;
        this.droppedBytes += excess;
      }
    }
  }

  toString(): string {
    const head = Buffer.concat(this.head).toString("utf8");
    const tail = Buffer.concat(this.tail).toString("utf8");
    if (!this.isTruncated) return head + tail;
    return `${head}\n[... ${this.droppedBytes} bytes omitted ...]\n${tail}`;
  }
}
