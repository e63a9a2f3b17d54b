import type { IncomingMessage } from "node:http";
import { pipeline, Readable, type Transform } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";

export interface AskedFor {
  /** Where the answer came from, after redirects. */
  readonly url: string;
  readonly redirected: boolean;
  readonly method: string;
  readonly signal: AbortSignal | undefined;
}

/**
 * An answer as `fetch` gives it (the `Response` interface, not undici's class: Octokit reads only
 * the interface); the body is read from Node's stream only when asked for, once.
 */
export class GitHubFetchResponse implements Response {
  readonly headers: Headers;
  readonly status: number;
  readonly statusText: string;
  readonly type = "basic" as const;
  readonly url: string;
  readonly redirected: boolean;
  readonly #content: Readable | null;
  readonly #signal: AbortSignal | undefined;
  #used = false;
  #stream: ReadableStream<Uint8Array> | null = null;

  constructor(answer: IncomingMessage, asked: AskedFor) {
    this.status = answer.statusCode ?? 0;
    this.statusText = answer.statusMessage ?? "";
    this.headers = new Headers();
    for (let index = 0; index + 1 < answer.rawHeaders.length; index += 2)
      this.headers.append(answer.rawHeaders[index] ?? "", answer.rawHeaders[index + 1] ?? "");
    this.url = asked.url;
    this.redirected = asked.redirected;
    this.#signal = asked.signal;
    const bodiless = asked.method === "HEAD" || [204, 205, 304].includes(this.status);
    if (bodiless) answer.resume();
    this.#content = bodiless ? null : decoded(answer, this.headers.get("content-encoding"));
  }

  get ok(): boolean {
    return this.status >= 200 && this.status <= 299;
  }

  get bodyUsed(): boolean {
    return this.#used;
  }

  get body(): ReadableStream<Uint8Array> | null {
    if (this.#content === null) return null;
    if (this.#stream === null) {
      this.#used = true;
      this.#stream = Readable.toWeb(this.#content) as ReadableStream<Uint8Array>;
    }
    return this.#stream;
  }

  async text(): Promise<string> {
    return new TextDecoder().decode(await this.#bytes());
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text()) as unknown;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.#bytes();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  async blob(): Promise<Blob> {
    return new Blob([await this.arrayBuffer()], { type: this.headers.get("content-type") ?? "" });
  }

  formData(): Promise<FormData> {
    return Promise.reject(new TypeError("the GitHub fetch does not parse form data"));
  }

  clone(): Response {
    throw new TypeError("the GitHub fetch's answers cannot be cloned");
  }

  async #bytes(): Promise<Buffer> {
    if (this.#used) throw new TypeError("the body of this answer has already been read");
    this.#used = true;
    const content = this.#content;
    if (content === null) return Buffer.alloc(0);
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of content) chunks.push(chunk as Buffer);
    } catch (error) {
      if (this.#signal?.aborted === true) throw this.#signal.reason;
      throw new TypeError("fetch failed", { cause: error });
    }
    return Buffer.concat(chunks);
  }
}

/** The body as sent, decompressed; an error on either side ends both (and the read fails). */
function decoded(answer: IncomingMessage, encoding: string | null): Readable {
  const decoder = decoderFor(encoding);
  if (decoder === null) return answer;
  // The read reports the error; the callback only keeps pipeline from throwing it a second time.
  return pipeline(answer, decoder, () => undefined);
}

function decoderFor(encoding: string | null): Transform | null {
  switch ((encoding ?? "").trim().toLowerCase()) {
    case "gzip":
    case "x-gzip":
      return createGunzip();
    case "deflate":
      return createInflate();
    case "br":
      return createBrotliDecompress();
    default:
      return null;
  }
}
