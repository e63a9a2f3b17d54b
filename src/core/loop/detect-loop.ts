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
      const count = turnSignatures.length;
      for (const length of CYCLE_LENGTHS) {
        if (count < length * 2) continue;
        if (repeatsLastCycle(turnSignatures, length)) {
          return `a cycle of ${length} turns repeated with no change in between`;
        }
      }
      return null;
    },
  };
}

/** The last `length` turns equal the `length` before them, and are not all one signature. */
function repeatsLastCycle(signatures: readonly string[], length: number): boolean {
  const end = signatures.length;
  let isVaried = false;
  for (let index = end - length; index < end; index += 1) {
    if (signatures[index] !== signatures[index - length]) return false;
    if (signatures[index] !== signatures[end - 1]) isVaried = true;
  }
  return isVaried;
}

function signatureOf(call: ToolCall): string {
  return `${call.function.name}:${canonicalArguments(call.function.arguments)}`;
}

/** Key order and whitespace do not make two calls different. */
function canonicalArguments(raw: string): string {
  try {
    return canonicalJson(JSON.parse(raw) as unknown);
  } catch (error) {
    if (error instanceof SyntaxError) return raw.trim();
    throw error;
  }
}

/** JSON text with object keys in code-unit order (only needs to be the same every time). */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

function truncate(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
