import { isLikelySecretValue, isSecretName } from "./secret-heuristics.js";
import { redactionMarker } from "./secret-range.js";

const MAX_DEPTH = 64;

/**
 * Walks a JSON-like value (trace attributes, tool arguments, log fields). Strings are redacted
 * by the text rules; a string under a credential key (`{ token: "…" }`) is hidden whole, since
 * outside text there is no `TOKEN=` for the assignment rule to see. Cycles and excessive depth
 * become a marker instead of a stack overflow.
 */
export function redactDeepWith(value: unknown, redact: (text: string) => string): unknown {
  const seen = new WeakSet<object>();

  function visit(current: unknown, key: string | undefined, depth: number): unknown {
    if (typeof current === "string") {
      if (key !== undefined && isSecretName(key) && isLikelySecretValue(current, true)) {
        return redactionMarker("secret-assignment");
      }
      return redact(current);
    }
    if (typeof current !== "object" || current === null) return current;
    if (seen.has(current)) return "[circular]";
    if (depth >= MAX_DEPTH) return "[too deep]";
    seen.add(current);
    try {
      if (Array.isArray(current)) return current.map((item) => visit(item, key, depth + 1));
      if (current instanceof Error) {
        return { name: current.name, message: redact(current.message), stack: redact(current.stack ?? "") };
      }
      const prototype: unknown = Object.getPrototypeOf(current);
      if (prototype !== Object.prototype && prototype !== null) return current;
      const copy: Record<string, unknown> = {};
      for (const [entryKey, entryValue] of Object.entries(current)) {
        copy[entryKey] = visit(entryValue, entryKey, depth + 1);
      }
      return copy;
    } finally {
      seen.delete(current);
    }
  }

  return visit(value, undefined, 0);
}
