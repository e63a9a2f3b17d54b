import { request as requestHttp, type IncomingMessage, type OutgoingHttpHeaders } from "node:http";
import { request as requestHttps } from "node:https";
import { pipeline, Readable } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import type { Transform } from "node:stream";

/**
 * A `fetch` for the App's Octokit, over Node's own HTTP client and its keep-alive agents. The
 * global `fetch` builds WHATWG streams, a `Request` and a body mixin for every call, and that CPU
 * is spent on the same cores as the webhook intake's answers (`bench/github-fetch.bench.ts`
 * measures both). It does what Octokit asks of `fetch`: a method, string
 * headers, a string or byte body, `redirect`, an abort `signal`; an answer whose body is read
 * whole (`text`, `arrayBuffer`, `json`) or streamed (`body`, for `parseSuccessResponseBody:
 * false`). It follows redirects as `fetch` does (at most 20; 303, and 301/302 of a POST, become
 * a GET without a body), drops the credentials on a redirect to another origin (a job log's
 * 302 leads to a storage host that must not see the installation token), asks for compressed
 * answers and decodes them, and fails as `fetch` fails: a `TypeError("fetch failed")` whose
 * `cause` is the socket's error, or, on an abort, the signal's reason.
 */
export type GitHubFetch = typeof fetch;

type HeadersInit = NonNullable<RequestInit["headers"]>;
type BodyInit = NonNullable<RequestInit["body"]>;

const MAX_REDIRECTS = 20;
/** As long as `fetch` waits for headers or between body chunks by default. */
const DEFAULT_IDLE_TIMEOUT_MS = 300_000;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** What `fetch` removes from a request that a redirect sends to another origin. */
const CREDENTIAL_HEADERS = ["authorization", "cookie", "proxy-authorization"];

export interface GitHubFetchOptions {
  /** No byte for this long, waiting for the answer's headers or its next chunk: the call fails. */
  readonly idleTimeoutMs?: number;
}

export function createGitHubFetch(options: GitHubFetchOptions = {}): GitHubFetch {
  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  return async (input, init = {}) => {
    if (typeof input !== "string" && !(input instanceof URL))
      throw new TypeError("the GitHub fetch takes a URL, not a Request");
    const signal = init.signal ?? undefined;
    signal?.throwIfAborted();
    let url = new URL(input);
    let method = (init.method ?? "GET").toUpperCase();
    let headers = toHeaderRecord(init.headers);
    let body = toBodyBytes(init.body);
    if (typeof init.body === "string" && headers["content-type"] === undefined)
      headers["content-type"] = "text/plain;charset=UTF-8";
    const redirect = init.redirect ?? "follow";
    for (let redirects = 0; ; redirects += 1) {
      const answer = await send(url, method, headers, body, signal, idleTimeoutMs);
      const status = answer.statusCode ?? 0;
      if (status < 200 || status > 599) {
        answer.destroy();
        throw new TypeError("fetch failed", {
          cause: new Error(`the server answered with status ${status}`),
        });
      }
      const location = answer.headers.location;
      if (redirect === "manual" || !REDIRECT_STATUSES.has(status) || location === undefined)
        return new GitHubResponse(answer, { url: url.href, redirected: redirects > 0, method, signal });
      answer.resume();
      if (redirect === "error")
        throw new TypeError("fetch failed", { cause: new Error(`redirected to ${location}`) });
      if (redirects >= MAX_REDIRECTS)
        throw new TypeError("fetch failed", { cause: new Error("too many redirects") });
      const next = new URL(location, url);
      if (next.protocol !== "http:" && next.protocol !== "https:")
        throw new TypeError("fetch failed", { cause: new Error(`redirected to a ${next.protocol} URL`) });
      if (
        status === 303
          ? method !== "GET" && method !== "HEAD"
          : (status === 301 || status === 302) && method === "POST"
      ) {
        method = "GET";
        body = undefined;
        headers = withoutHeaders(headers, [
          "content-type",
          "content-length",
          "content-encoding",
          "content-language",
          "content-location",
        ]);
      }
      if (next.origin !== url.origin) headers = withoutHeaders(headers, CREDENTIAL_HEADERS);
      url = next;
    }
  };
}

function send(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: Uint8Array | undefined,
  signal: AbortSignal | undefined,
  idleTimeoutMs: number,
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const outgoing: OutgoingHttpHeaders = { "accept-encoding": "gzip, deflate, br", ...headers };
    if (body !== undefined) outgoing["content-length"] = body.byteLength;
    const request = (url.protocol === "https:" ? requestHttps : requestHttp)(url, {
      method,
      headers: outgoing,
      ...(signal === undefined ? {} : { signal }),
    });
    request.setTimeout(idleTimeoutMs, () =>
      request.destroy(new Error(`no answer within ${idleTimeoutMs} ms`)),
    );
    request.once("response", resolve);
    request.once("error", (error) => {
      // As fetch: an abort rejects with the signal's reason, whatever the caller made it.
      if (signal?.aborted === true) reject(signal.reason as Error);
      else reject(new TypeError("fetch failed", { cause: error }));
    });
    request.end(body);
  });
}

interface AskedFor {
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
class GitHubResponse implements Response {
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

function toHeaderRecord(headers: HeadersInit | undefined): Record<string, string> {
  const record: Record<string, string> = {};
  if (headers === undefined) return record;
  const entries = headers instanceof Headers || Array.isArray(headers) ? headers : Object.entries(headers);
  for (const [name, value] of entries) record[name.toLowerCase()] = String(value);
  return record;
}

function toBodyBytes(body: BodyInit | null | undefined): Uint8Array | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string") return Buffer.from(body, "utf8");
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  throw new TypeError("the GitHub fetch sends a string or bytes as a body, not a stream or a form");
}

function withoutHeaders(headers: Record<string, string>, names: readonly string[]): Record<string, string> {
  const kept = { ...headers };
  for (const name of names) delete kept[name];
  return kept;
}
