import { createHash } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { ChatMessage, ToolCall } from "../model/model-types.js";
import type { TokenCounter } from "./create-token-counter.js";
import { findUnseenObservations, indexToolCalls } from "./transcript-turns.js";

/** What the manager remembers of a tool result, to describe an observation once it is pruned. */
export interface RecordedToolResult {
  readonly ok: boolean;
  readonly status: string;
  readonly errorType?: string;
  readonly artifacts: readonly string[];
}

export const PRUNED_MARKER = "[pruned tool output]";

export interface PruneObservationsOptions {
  readonly counter: TokenCounter;
  /** Tool messages, counted from the newest, that stay verbatim. */
  readonly protectRecent: number;
  /** Stop pruning once the request is at or below this many tokens. */
  readonly targetTokens: number;
  readonly currentTokens: number;
  readonly toolResults: ReadonlyMap<string, RecordedToolResult>;
  /** Where pruned outputs are written in full; without it the stub tells the model to re-run the tool. */
  readonly scratchDir?: string;
  /** True when the model has a tool that can read files in scratchDir. */
  readonly scratchReadable?: boolean;
  /** Outputs smaller than this stay: a stub would not save enough to be worth losing them. */
  readonly minTokens?: number;
}

export interface PruneObservationsResult {
  readonly history: ChatMessage[];
  readonly prunedCount: number;
  readonly tokensAfter: number;
  readonly notes: readonly string[];
}

export function isPrunedObservation(message: ChatMessage): boolean {
  return message.role === "tool" && message.content.startsWith(PRUNED_MARKER);
}

function summarizeArguments(call: ToolCall | undefined): string {
  if (!call) return "";
  const raw = call.function.arguments.replace(/\s+/g, " ").trim();
  return raw.length <= 120 ? raw : `${raw.slice(0, 119)}…`;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** A path where the full output already lives: a scratch artifact, or a path the output names. */
function findSavedPath(
  content: string,
  recorded: RecordedToolResult | undefined,
  scratchDir?: string,
): string | null {
  if (scratchDir) {
    const inScratch = recorded?.artifacts.find((artifact) => artifact.startsWith(scratchDir + path.sep));
    if (inScratch) return inScratch;
    const mention = new RegExp(`${escapeRegExp(scratchDir + path.sep)}[^\\s"'\`)\\]]+`).exec(content);
    if (mention) return mention[0];
  }
  const said = /\b(?:saved|written|stored)\s+(?:to|at|in)\s+([^\s"'`]+[^\s"'`.,;:)\]])/i.exec(content);
  return said?.[1] ?? null;
}

function scratchFileName(callId: string): string {
  const readable = callId.replace(/[^A-Za-z0-9_-]/g, "").slice(0, 48);
  const digest = createHash("sha256").update(callId).digest("hex").slice(0, 10);
  return `pruned-${readable}-${digest}.txt`;
}

/**
 * Replaces old tool outputs by one-line stubs, oldest first, until the request fits the target.
 * The message order and every tool_call_id stay as they were, so the transcript stays valid.
 */
export async function pruneObservations(
  history: readonly ChatMessage[],
  options: PruneObservationsOptions,
): Promise<PruneObservationsResult> {
  const { counter } = options;
  const minTokens = options.minTokens ?? 64;
  const calls = indexToolCalls(history);
  const unseen = findUnseenObservations(history);
  const toolIndices: number[] = [];
  history.forEach((message, index) => {
    if (message.role === "tool") toolIndices.push(index);
  });
  const candidates = toolIndices.slice(0, Math.max(0, toolIndices.length - options.protectRecent));
  const next = [...history];
  const notes: string[] = [];
  let tokens = options.currentTokens;
  let prunedCount = 0;
  let scratchReady = false;

  for (const index of candidates) {
    if (tokens <= options.targetTokens) break;
    const message = next[index];
    if (message?.role !== "tool" || unseen.has(index) || isPrunedObservation(message)) continue;
    const before = counter.countMessage(message);
    if (before < minTokens) continue;
    const call = calls.get(message.tool_call_id);
    const recorded = options.toolResults.get(message.tool_call_id);
    let where = findSavedPath(message.content, recorded, options.scratchDir);
    let written = false;
    if (where === null && options.scratchDir) {
      try {
        if (!scratchReady) {
          await mkdir(options.scratchDir, { recursive: true, mode: 0o700 });
          scratchReady = true;
        }
        where = path.join(options.scratchDir, scratchFileName(message.tool_call_id));
        await writeFile(where, message.content, { mode: 0o600 });
        written = true;
      } catch (error) {
        notes.push(`could not save a pruned output to ${options.scratchDir}: ${(error as Error).message}`);
        where = null;
      }
    }
    const outcome = recorded
      ? recorded.ok
        ? "ok"
        : `error${recorded.errorType ? ` ${recorded.errorType}` : ` (${recorded.status})`}`
      : "outcome not recorded";
    const size = `${message.content.length.toLocaleString("en-US")} chars, ${before.toLocaleString("en-US")} tokens`;
    let pointer: string;
    if (where === null) pointer = "Re-run the tool to see it again.";
    else if (!written || options.scratchReadable === true) pointer = `Full output at ${where}.`;
    else
      pointer = `Full output kept at ${where} for the run record (outside the workspace; re-run the tool to see it again).`;
    const name = call?.function.name ?? "unknown tool";
    const stub: ChatMessage = {
      role: "tool",
      tool_call_id: message.tool_call_id,
      content: `${PRUNED_MARKER} ${name} ${summarizeArguments(call)} → ${outcome}; ${size}. ${pointer}`,
    };
    const after = counter.countMessage(stub);
    if (after >= before) continue;
    next[index] = stub;
    tokens -= before - after;
    prunedCount += 1;
  }
  return { history: next, prunedCount, tokensAfter: tokens, notes };
}
