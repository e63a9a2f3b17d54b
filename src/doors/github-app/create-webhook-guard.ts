import { createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { PayloadJson } from "../../queue/open-intake-journal.js";

export interface WebhookGuardOptions {
  readonly path: string;
  readonly secret: string;
  /** GitHub caps webhook payloads at 25 MB; anything larger is not from GitHub. */
  readonly maxBodyBytes?: number;
  /** Real payloads nest a dozen levels; a deep one is an attack on recursive code downstream. */
  readonly maxDepth?: number;
  /** Told of every refused delivery, after its answer was sent (for the log and `/metrics`). */
  readonly onRefused?: (refusal: WebhookRefusal) => void;
}

/** Why the guard refused a delivery; a label on `/metrics`, so a small fixed set. */
export type WebhookRefusalReason =
  "too-large" | "missing-signature" | "bad-signature" | "too-deep" | "invalid-json" | "not-an-object";

export interface WebhookRefusal {
  readonly reason: WebhookRefusalReason;
  readonly status: number;
  /** What the sender was told. */
  readonly message: string;
  /** The `X-GitHub-Delivery` and `X-GitHub-Event` headers, when sent. */
  readonly delivery: string | null;
  readonly event: string | null;
}

export const DEFAULT_MAX_BODY_BYTES = 25 * 1024 * 1024;
export const DEFAULT_MAX_DEPTH = 64;

/**
 * What the guard did with a request: answered it (a refusal), left it alone (not a POST to the
 * webhook path), or verified it and parsed its body once, for the caller to hand on: the parsed
 * payload, and the text it was parsed from (what the intake journal writes and the intake thread
 * passes on).
 */
export type GuardedRequest =
  | { readonly kind: "answered" }
  | { readonly kind: "not-a-webhook" }
  | {
      readonly kind: "verified";
      readonly payload: Readonly<Record<string, unknown>>;
      readonly payloadJson: PayloadJson;
    };

const ANSWERED: GuardedRequest = { kind: "answered" };
const NOT_A_WEBHOOK: GuardedRequest = { kind: "not-a-webhook" };

/** Sends the refusal and returns its message. */
function answer(response: ServerResponse, status: number, message: string): string {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify({ error: message }));
  return message;
}

function headerOf(request: IncomingMessage, name: string): string | null {
  const value = request.headers[name];
  return typeof value === "string" && value.length > 0 ? value.slice(0, 100) : null;
}

/**
 * Answers 413 at once, then discards what the sender is still writing. Closing the socket
 * while data is in flight makes the kernel reset it, and a reset can drop the 413 before the
 * sender reads it. Past a hard cap the socket is destroyed anyway; the server's request
 * timeout bounds a sender that never stops.
 */
function tooLarge(request: IncomingMessage, response: ServerResponse, limit: number): string {
  let discarded = 0;
  request.removeAllListeners("data");
  request.on("data", (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > limit * 4) request.destroy();
  });
  request.resume();
  return answer(response, 413, `payload larger than ${limit} bytes`);
}

/**
 * Checks a webhook request before Probot sees it: size (413 before the body is read in full),
 * signature (before anything is parsed), nesting depth, JSON syntax, and that the payload is an
 * object. The signature is checked and the JSON parsed here only: the parsed payload is handed on,
 * so nothing downstream verifies or parses the same body again.
 */
export function createWebhookGuard(
  options: WebhookGuardOptions,
): (request: IncomingMessage, response: ServerResponse) => Promise<GuardedRequest> {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  const refused = (
    request: IncomingMessage,
    reason: WebhookRefusalReason,
    status: number,
    message: string,
  ): GuardedRequest => {
    options.onRefused?.({
      reason,
      status,
      message,
      delivery: headerOf(request, "x-github-delivery"),
      event: headerOf(request, "x-github-event"),
    });
    return ANSWERED;
  };
  return async (request, response) => {
    if (request.method !== "POST" || pathnameOf(request.url) !== options.path) return NOT_A_WEBHOOK;
    const declared = Number(request.headers["content-length"] ?? "0");
    if (Number.isFinite(declared) && declared > maxBodyBytes)
      return refused(request, "too-large", 413, tooLarge(request, response, maxBodyBytes));
    const body = await readBody(request, maxBodyBytes);
    if (body === null) return refused(request, "too-large", 413, tooLarge(request, response, maxBodyBytes));
    const signature = request.headers["x-hub-signature-256"];
    if (typeof signature !== "string" || signature.length === 0) {
      return refused(
        request,
        "missing-signature",
        400,
        answer(response, 400, "missing X-Hub-Signature-256 header"),
      );
    }
    if (!isValidSignature(options.secret, body, signature))
      return refused(request, "bad-signature", 401, answer(response, 401, "signature does not match"));
    if (exceedsDepth(body, maxDepth))
      return refused(
        request,
        "too-deep",
        400,
        answer(response, 400, `payload nested deeper than ${maxDepth} levels`),
      );
    const text = body.toString("utf8");
    let payload: unknown;
    try {
      payload = JSON.parse(text);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return refused(
        request,
        "invalid-json",
        400,
        answer(response, 400, `payload is not valid JSON: ${reason}`),
      );
    }
    if (typeof payload !== "object" || payload === null || Array.isArray(payload)) {
      return refused(request, "not-an-object", 400, answer(response, 400, "payload is not a JSON object"));
    }
    return {
      kind: "verified",
      payload: payload as Readonly<Record<string, unknown>>,
      // The very text just parsed: what `PayloadJson` promises.
      payloadJson: text as PayloadJson,
    };
  };
}

function pathnameOf(url: string | undefined): string | null {
  try {
    return new URL(url ?? "/", "http://localhost").pathname.replace(/\/+$/, "") || "/";
  } catch {
    return null;
  }
}

/** Reads at most `limit` bytes; null (and the rest discarded) when the body is larger. */
function readBody(request: IncomingMessage, limit: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let isOverLimit = false;
    request.on("data", (chunk: Buffer) => {
      if (isOverLimit) return;
      size += chunk.length;
      if (size > limit) {
        isOverLimit = true;
        chunks.length = 0;
        resolve(null);
        return;
      }
      chunks.push(chunk);
    });
    request.on("end", () => {
      if (!isOverLimit) resolve(Buffer.concat(chunks));
    });
    request.on("error", reject);
  });
}

function isValidSignature(secret: string, body: Buffer, signature: string): boolean {
  const expected = Buffer.from(`sha256=${createHmac("sha256", secret).update(body).digest("hex")}`);
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Counts bracket depth outside strings in one pass over the body's bytes, without building
 * anything. UTF-8 encodes every character above U+007F in bytes of 0x80 and over, so a quote,
 * backslash or bracket byte is always that character. A string is skipped with `indexOf` to its
 * next quote (native, and most of a webhook's bytes are in strings); a quote after an odd run of
 * backslashes is escaped, and the search goes on. An unterminated string ends the count: such a
 * body is not JSON, and the parse that follows refuses it.
 */
export function exceedsDepth(json: Buffer | string, maxDepth: number): boolean {
  const bytes = typeof json === "string" ? Buffer.from(json, "utf8") : json;
  let depth = 0;
  let index = 0;
  while (index < bytes.length) {
    const code = bytes[index];
    if (code === QUOTE) {
      const end = closingQuoteOf(bytes, index);
      if (end === -1) return false;
      index = end + 1;
      continue;
    }
    if (code === 0x7b || code === 0x5b) {
      depth += 1;
      if (depth > maxDepth) return true;
    } else if (code === 0x7d || code === 0x5d) {
      depth -= 1;
    }
    index += 1;
  }
  return false;
}

/** The index of the quote that closes the string opened at `opening`, or -1. */
function closingQuoteOf(bytes: Buffer, opening: number): number {
  let from = opening + 1;
  for (;;) {
    const quote = bytes.indexOf(QUOTE, from);
    if (quote === -1) return -1;
    let backslashes = 0;
    for (let before = quote - 1; before > opening && bytes[before] === BACKSLASH; before -= 1)
      backslashes += 1;
    if (backslashes % 2 === 0) return quote;
    from = quote + 1;
  }
}
