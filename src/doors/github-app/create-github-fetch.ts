import { request as requestHttp, type IncomingMessage, type OutgoingHttpHeaders } from "node:http";
import { request as requestHttps } from "node:https";
import { GitHubFetchResponse } from "./github-fetch-response.js";

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
        return new GitHubFetchResponse(answer, { url: url.href, redirected: redirects > 0, method, signal });
      answer.resume();
      if (redirect === "error")
        throw new TypeError("fetch failed", { cause: new Error(`redirected to ${location}`) });
      if (redirects >= MAX_REDIRECTS)
        throw new TypeError("fetch failed", { cause: new Error("too many redirects") });
      const next = new URL(location, url);
      if (next.protocol !== "http:" && next.protocol !== "https:")
        throw new TypeError("fetch failed", { cause: new Error(`redirected to a ${next.protocol} URL`) });
      if (turnsIntoGet(status, method)) {
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

/** As fetch: a 303 makes any method but GET and HEAD a GET, a 301 or 302 makes a POST one. */
function turnsIntoGet(status: number, method: string): boolean {
  if (status === 303) return method !== "GET" && method !== "HEAD";
  return (status === 301 || status === 302) && method === "POST";
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
