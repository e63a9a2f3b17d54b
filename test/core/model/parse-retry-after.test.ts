import { describe, expect, it } from "@jest/globals";
import { computeRetryDelay, parseRetryAfter } from "../../../src/core/model/parse-retry-after.js";

describe("parseRetryAfter", () => {
  const now = () => Date.parse("2026-01-01T00:00:00Z");

  it.each([
    [{ "retry-after": "2" }, 2_000],
    [{ "retry-after": "0.5" }, 500],
    [{ "retry-after-ms": "120" }, 120],
    [{ "retry-after-ms": "120", "retry-after": "9" }, 120],
    [{ "retry-after-ms": "soon", "retry-after": "3" }, 3_000],
    [{ "retry-after": "Thu, 01 Jan 2026 00:00:07 GMT" }, 7_000],
    [{ "retry-after": "Wed, 31 Dec 2025 23:00:00 GMT" }, 0],
    [{ "retry-after": "whenever" }, undefined],
    [{ "retry-after": "-3" }, undefined],
    [{}, undefined],
  ])("reads %j as %s ms", (headers, expected) => {
    expect(parseRetryAfter(new Headers(headers), now)).toBe(expected);
  });
});

describe("computeRetryDelay", () => {
  const options = { baseDelayMs: 100, maxDelayMs: 1_000 };

  it("draws uniformly below an exponentially growing ceiling", () => {
    expect(computeRetryDelay(1, undefined, { ...options, random: () => 0.999 })).toBe(100);
    expect(computeRetryDelay(3, undefined, { ...options, random: () => 0.5 })).toBe(200);
    expect(computeRetryDelay(10, undefined, { ...options, random: () => 0.999 })).toBe(999);
    expect(computeRetryDelay(2, undefined, { ...options, random: () => 0 })).toBe(0);
  });

  it("prefers the server's Retry-After, capped at maxDelayMs", () => {
    expect(computeRetryDelay(1, 300, { ...options, random: () => 0 })).toBe(300);
    expect(computeRetryDelay(1, 60_000, { ...options, random: () => 0 })).toBe(1_000);
  });
});
