import type { ToolCall } from "../model/model-types.js";

/**
 * Notices a model going round in circles: the same call three times with no write in between, or a
 * short cycle of turns (length 2 to 4) repeated back to back with no write in between.
 */
export interface LoopDetector {
  /** Records one turn's calls; returns a description when a loop is detected. */
  recordTurn(calls: readonly ToolCall[], hadWrite: boolean): string | null;
}

const SAME_CALL_LIMIT = 3;
const CYCLE_LENGTHS = [2, 3, 4];

export function createLoopDetector(): LoopDetector {
  const callCounts = new Map<string, number>();
  let turnSignatures: string[] = [];
  return {
    recordTurn(calls, hadWrite) {
      if (hadWrite) {
        callCounts.clear();
        turnSignatures = [];
        return null;
      }
      const signatures = calls.map(signatureOf);
      for (const [index, call] of calls.entries()) {
        const signature = signatures[index] as string;
        const count = (callCounts.get(signature) ?? 0) + 1;
        callCounts.set(signature, count);
        if (count >= SAME_CALL_LIMIT) {
          return `the same call was made ${count} times with no change in between: ${call.function.name} ${truncate(call.function.arguments)}`;
        }
      }
      turnSignatures.push(signatures.join("|"));
      for (const length of CYCLE_LENGTHS) {
        if (turnSignatures.length < length * 2) continue;
        const recent = turnSignatures.slice(-length);
        const before = turnSignatures.slice(-length * 2, -length);
        const isVaried = new Set(recent).size > 1;
        if (isVaried && recent.every((signature, index) => signature === before[index])) {
          return `a cycle of ${length} turns repeated with no change in between`;
        }
      }
      return null;
    },
  };
}

function signatureOf(call: ToolCall): string {
  return `${call.function.name}:${canonicalArguments(call.function.arguments)}`;
}

/** Key order and whitespace do not make two calls different. */
function canonicalArguments(raw: string): string {
  try {
    return JSON.stringify(sortKeys(JSON.parse(raw)));
  } catch (error) {
    if (error instanceof SyntaxError) return raw.trim();
    throw error;
  }
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        // Code-unit order: only needs to be the same every time, not a language's collation.
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([key, inner]) => [key, sortKeys(inner)]),
    );
  }
  return value;
}

function truncate(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
