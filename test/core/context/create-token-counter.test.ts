import { describe, it, expect } from "@jest/globals";
import { createTokenCounter, encodingForModel } from "../../../src/core/context/create-token-counter.js";
import type { ChatMessage, ToolDefinition } from "../../../src/core/model/model-types.js";

describe("encodingForModel", () => {
  it("maps model families to their tokenizer", () => {
    expect(encodingForModel("gpt-4o-mini")).toEqual({ encoding: "o200k_base", estimated: false });
    expect(encodingForModel("gpt-4.1")).toEqual({ encoding: "o200k_base", estimated: false });
    expect(encodingForModel("gpt-5-codex")).toEqual({ encoding: "o200k_base", estimated: false });
    expect(encodingForModel("o3-mini")).toEqual({ encoding: "o200k_base", estimated: false });
    expect(encodingForModel("openai/o4-mini")).toEqual({ encoding: "o200k_base", estimated: false });
    expect(encodingForModel("gpt-4-turbo")).toEqual({ encoding: "cl100k_base", estimated: false });
    expect(encodingForModel("gpt-3.5-turbo")).toEqual({ encoding: "cl100k_base", estimated: false });
  });

  it("flags unknown models as estimated with o200k_base", () => {
    expect(encodingForModel("llama3.1:8b")).toEqual({ encoding: "o200k_base", estimated: true });
    expect(createTokenCounter("qwen2.5-coder").estimated).toBe(true);
  });
});

describe("createTokenCounter", () => {
  it("counts with the real tokenizer, which differs between encodings", () => {
    const o200k = createTokenCounter("gpt-4o");
    const cl100k = createTokenCounter("gpt-4");
    expect(o200k.count("hello world")).toBe(2);
    expect(o200k.count("")).toBe(0);
    // Non-English text is where the two vocabularies differ most.
    const text = "Принцип работы токенизатора зависит от словаря. 这是一个测试句子。";
    expect(o200k.count(text)).not.toBe(cl100k.count(text));
    expect(o200k.count(text)).toBeGreaterThan(5);
  });

  it("counts special-token text as plain text instead of throwing", () => {
    const counter = createTokenCounter("gpt-4o");
    expect(counter.count("a <|endoftext|> b")).toBeGreaterThan(3);
  });

  it("adds per-message framing and counts tool calls' names and arguments", () => {
    const counter = createTokenCounter("gpt-4o");
    const user: ChatMessage = { role: "user", content: "hello world" };
    expect(counter.countMessage(user)).toBe(3 + counter.count("user") + 2);
    const bare: ChatMessage = { role: "assistant", content: null };
    const withCall: ChatMessage = {
      role: "assistant",
      content: null,
      tool_calls: [
        {
          id: "call_1",
          type: "function",
          function: { name: "read_file", arguments: '{"path":"src/index.ts"}' },
        },
      ],
    };
    const callCost = counter.countMessage(withCall) - counter.countMessage(bare);
    expect(callCost).toBeGreaterThanOrEqual(
      counter.count("read_file") + counter.count('{"path":"src/index.ts"}'),
    );
    expect(counter.countMessages([user, withCall])).toBe(
      3 + counter.countMessage(user) + counter.countMessage(withCall),
    );
  });

  it("caches counts per message object so counting a growing history stays linear", () => {
    const counter = createTokenCounter("gpt-4o");
    const history: ChatMessage[] = [];
    for (let index = 0; index < 400; index += 1) {
      history.push({ role: "user", content: `message ${index} `.repeat(300) });
    }
    const coldStart = performance.now();
    const cold = counter.countMessages(history);
    const coldMs = performance.now() - coldStart;
    const warmStart = performance.now();
    const warm = counter.countMessages(history);
    const warmMs = performance.now() - warmStart;
    expect(warm).toBe(cold);
    expect(warmMs).toBeLessThan(coldMs / 5);
  });

  it("counts the same whether a text is new, remembered, or pushed out of the cache by many others", () => {
    const counter = createTokenCounter("gpt-4o");
    const fresh = (): ReturnType<typeof createTokenCounter> => createTokenCounter("gpt-4o");
    const texts = Array.from({ length: 1_500 }, (_, index) => `line ${index}: const total = sum(rows);`);
    const expected = texts.map((text) => fresh().count(text));
    // First pass fills and overflows the cache; the second meets evicted and remembered texts.
    expect(texts.map((text) => counter.count(text))).toEqual(expected);
    expect(texts.map((text) => counter.count(text))).toEqual(expected);
    expect([...texts].reverse().map((text) => counter.count(text))).toEqual([...expected].reverse());
    expect(counter.count("assistant")).toBe(fresh().count("assistant"));
    // Big texts push each other out by size, long before the count limit; counts stay right.
    const big = Array.from({ length: 24 }, (_, index) => `chunk ${index} `.repeat(6_000));
    const bigExpected = big.map((text) => fresh().count(text));
    expect(big.map((text) => counter.count(text))).toEqual(bigExpected);
    expect([...big].reverse().map((text) => counter.count(text))).toEqual([...bigExpected].reverse());
    expect(texts.slice(0, 50).map((text) => counter.count(text))).toEqual(expected.slice(0, 50));
    // A text too long to remember is still counted.
    const long = "word ".repeat(20_000);
    expect(counter.count(long)).toBe(fresh().count(long));
    expect(counter.count(long)).toBeGreaterThanOrEqual(20_000);
  });

  it("counts tool definitions including their JSON schema", () => {
    const counter = createTokenCounter("gpt-4o");
    const small: ToolDefinition = {
      type: "function",
      function: { name: "noop", description: "Does nothing.", parameters: { type: "object" } },
    };
    const large: ToolDefinition = {
      type: "function",
      function: {
        name: "grep",
        description: "Search files for a regular expression.",
        parameters: {
          type: "object",
          properties: { pattern: { type: "string", description: "The regular expression to look for" } },
          required: ["pattern"],
        },
      },
    };
    expect(counter.countTools([])).toBe(0);
    expect(counter.countTools([large])).toBeGreaterThan(counter.countTools([small]));
    expect(counter.countTools([small, large])).toBeGreaterThan(counter.countTools([large]));
  });
});
