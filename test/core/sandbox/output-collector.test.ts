import { describe, expect, it } from "@jest/globals";
import { OutputCollector } from "../../../src/core/sandbox/output-collector.js";

describe("OutputCollector", () => {
  it("keeps everything under the limit", () => {
    const collector = new OutputCollector(100);
    collector.push(Buffer.from("hello "));
    collector.push(Buffer.from("world"));
    expect(collector.toString()).toBe("hello world");
    expect(collector.isTruncated).toBe(false);
  });

  it("keeps the head and the tail and says how much was left out", () => {
    const collector = new OutputCollector(10);
    for (const part of ["AAAAA", "BBBBBBBBBB", "CCCCC"]) collector.push(Buffer.from(part));
    expect(collector.isTruncated).toBe(true);
    expect(collector.totalBytes).toBe(20);
    expect(collector.toString()).toBe("AAAAA\n[... 10 bytes omitted ...]\nCCCCC");
  });
});
