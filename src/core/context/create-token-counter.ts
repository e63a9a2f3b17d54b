import { createRequire } from "node:module";
import type { ChatMessage, ToolDefinition } from "../model/model-types.js";

export type EncodingName = "o200k_base" | "cl100k_base";

export interface EncodingChoice {
  readonly encoding: EncodingName;
  /** True when the model is not a known family: counts then are an estimate with o200k_base. */
  readonly estimated: boolean;
}

export interface TokenCounter {
  readonly model: string;
  readonly encoding: EncodingName;
  readonly estimated: boolean;
  count(text: string): number;
  /** One message with its framing overhead (role, separators, tool call names and arguments). */
  countMessage(message: ChatMessage): number;
  /** A whole request's messages, including the tokens that prime the reply. */
  countMessages(messages: readonly ChatMessage[]): number;
  countTools(tools: readonly ToolDefinition[]): number;
  /**
   * Corrects later counts from what the server reported for a request this counter estimated at
   * `estimatedTokens`: every count is scaled by the server's tokens per estimated token, since
   * a local model's tokenizer and chat template are not OpenAI's.
   */
  calibrate(estimatedTokens: number, reportedTokens: number): void;
  /** The server's tokens per raw estimated token (1 until calibrated). */
  readonly correction: number;
}

/*
 * Framing costs follow OpenAI's published counting recipe for chat models: every message costs
 * 3 tokens of framing and every reply is primed with 3 more. Tool calls and tool definitions are
 * rendered by the provider in a format it does not publish; the constants below were chosen to
 * over-count slightly, since under-counting is what overflows a window.
 */
const TOKENS_PER_MESSAGE = 3;
const TOKENS_PER_REPLY_PRIMING = 3;
const TOKENS_PER_TOOL_CALL = 4;
const TOKENS_PER_TOOL_DEFINITION = 8;
const TOKENS_FOR_TOOLS_PREAMBLE = 12;

const O200K_FAMILIES = /^(gpt-4o|chatgpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|gpt-oss|o1|o3|o4|codex)/;
const CL100K_FAMILIES = /^(gpt-4|gpt-3\.5|gpt-35|text-embedding-3|text-embedding-ada-002)/;

/** Picks the tokenizer of a model family; names may carry a provider prefix ("openai/gpt-4o"). */
export function encodingForModel(model: string): EncodingChoice {
  const name = model.trim().toLowerCase().split("/").pop() ?? "";
  if (O200K_FAMILIES.test(name)) return { encoding: "o200k_base", estimated: false };
  if (CL100K_FAMILIES.test(name)) return { encoding: "cl100k_base", estimated: false };
  return { encoding: "o200k_base", estimated: true };
}

type EncodeFunction = (text: string) => number;

/** The part of gpt-tokenizer's per-encoding module this file uses. */
interface EncodingModule {
  countTokens(text: string, options?: { disallowedSpecial?: Set<string> }): number;
}

const loadedEncoders = new Map<EncodingName, EncodeFunction>();
const requireFromHere = createRequire(import.meta.url);

/*
 * The BPE tables take a few hundred ms to load, so they are loaded on the first count, not at
 * start-up. A synchronous require keeps `count` synchronous. Each name appears in a literal
 * `require(...)` so a bundler (the Action's single-file build) sees and includes it; when this
 * runs as plain ESM, where `require` does not exist, createRequire loads the same file.
 */
function requireEncoding(encoding: EncodingName): EncodingModule {
  const hasRequire = typeof require === "function";
  const module: unknown =
    encoding === "o200k_base"
      ? hasRequire
        ? // eslint-disable-next-line @typescript-eslint/no-require-imports -- a literal require is what bundlers follow
          require("gpt-tokenizer/encoding/o200k_base")
        : requireFromHere("gpt-tokenizer/encoding/o200k_base")
      : hasRequire
        ? // eslint-disable-next-line @typescript-eslint/no-require-imports -- a literal require is what bundlers follow
          require("gpt-tokenizer/encoding/cl100k_base")
        : requireFromHere("gpt-tokenizer/encoding/cl100k_base");
  return module as EncodingModule;
}

function loadEncoder(encoding: EncodingName): EncodeFunction {
  const cached = loadedEncoders.get(encoding);
  if (cached) return cached;
  const module = requireEncoding(encoding);
  // Special-token text such as "<|endoftext|>" in a file is plain text to the provider: count it so.
  const options = { disallowedSpecial: new Set<string>() };
  const encode: EncodeFunction = (text) => module.countTokens(text, options);
  loadedEncoders.set(encoding, encode);
  return encode;
}

/**
 * Strings counted again and again (system prompt, ledger, role names, a message's fields when a
 * fresh copy of it is measured) are remembered by content: the most recent few hundred, and no
 * more than TEXT_CACHE_MAX_CHARS in all, since the cache keeps the texts themselves alive.
 */
const TEXT_CACHE_SIZE = 512;
const TEXT_CACHE_MAX_CHARS = 1024 * 1024;
/** Longer texts are rare repeats (whole files); hashing them for the cache would cost for nothing. */
const TEXT_CACHE_MAX_LENGTH = 64 * 1024;

/** A correction outside this range says the report is not about the estimated request. */
const MIN_CORRECTION = 0.25;
const MAX_CORRECTION = 4;

export function createTokenCounter(model: string): TokenCounter {
  const choice = encodingForModel(model);
  const messageCounts = new WeakMap<ChatMessage, number>();
  const toolCounts = new WeakMap<ToolDefinition, number>();
  const textCounts = new Map<string, number>();
  let cachedChars = 0;
  let correction = 1;
  // An OpenAI family's own tokenizer counts the text exactly: a server's report may raise its
  // counts (framing, tool schemas) but not lower them. An unknown model's counts go either way.
  const lowestCorrection = choice.estimated ? MIN_CORRECTION : 1;
  // Rounded up: under-counting is what overflows a window.
  const corrected = (raw: number): number => (correction === 1 ? raw : Math.ceil(raw * correction));

  function rawCount(text: string): number {
    if (text.length === 0) return 0;
    if (text.length > TEXT_CACHE_MAX_LENGTH) return loadEncoder(choice.encoding)(text);
    const known = textCounts.get(text);
    if (known !== undefined) {
      // Least recently used goes first: move a hit to the end of the insertion order.
      textCounts.delete(text);
      textCounts.set(text, known);
      return known;
    }
    const counted = loadEncoder(choice.encoding)(text);
    while (
      textCounts.size > 0 &&
      (textCounts.size >= TEXT_CACHE_SIZE || cachedChars + text.length > TEXT_CACHE_MAX_CHARS)
    ) {
      const oldest = textCounts.keys().next();
      if (oldest.done === true) break;
      textCounts.delete(oldest.value);
      cachedChars -= oldest.value.length;
    }
    textCounts.set(text, counted);
    cachedChars += text.length;
    return counted;
  }

  function rawCountMessage(message: ChatMessage): number {
    const known = messageCounts.get(message);
    if (known !== undefined) return known;
    const count = rawCount;
    let total = TOKENS_PER_MESSAGE + count(message.role);
    switch (message.role) {
      case "system":
      case "user":
        total += count(message.content);
        break;
      case "assistant":
        total += count(message.content ?? "");
        for (const call of message.tool_calls ?? []) {
          total +=
            TOKENS_PER_TOOL_CALL +
            count(call.id) +
            count(call.function.name) +
            count(call.function.arguments);
        }
        break;
      case "tool":
        total += count(message.tool_call_id) + count(message.content);
        break;
    }
    messageCounts.set(message, total);
    return total;
  }

  function countMessages(messages: readonly ChatMessage[]): number {
    let total = TOKENS_PER_REPLY_PRIMING;
    for (const message of messages) total += rawCountMessage(message);
    return corrected(total);
  }

  function countTool(tool: ToolDefinition): number {
    const known = toolCounts.get(tool);
    if (known !== undefined) return known;
    const count = rawCount;
    const counted =
      TOKENS_PER_TOOL_DEFINITION +
      count(tool.function.name) +
      count(tool.function.description) +
      count(JSON.stringify(tool.function.parameters));
    toolCounts.set(tool, counted);
    return counted;
  }

  function countTools(tools: readonly ToolDefinition[]): number {
    if (tools.length === 0) return 0;
    let total = TOKENS_FOR_TOOLS_PREAMBLE;
    for (const tool of tools) total += countTool(tool);
    return corrected(total);
  }

  function calibrate(estimatedTokens: number, reportedTokens: number): void {
    if (!(estimatedTokens > 0) || !(reportedTokens > 0)) return;
    // The estimate was made with the current correction; the new one replaces it, since
    // consecutive requests share most of their text.
    const next = (correction * reportedTokens) / estimatedTokens;
    if (!Number.isFinite(next)) return;
    correction = Math.min(MAX_CORRECTION, Math.max(lowestCorrection, next));
  }

  return {
    model,
    encoding: choice.encoding,
    estimated: choice.estimated,
    count: (text) => corrected(rawCount(text)),
    countMessage: (message) => corrected(rawCountMessage(message)),
    countMessages,
    countTools,
    calibrate,
    get correction() {
      return correction;
    },
  };
}
