import { describe, expect, it } from "@jest/globals";
import { EndMarkerScanner } from "../../../src/core/sandbox/end-marker-scanner.js";
import { parseBwrapChildPid } from "../../../src/core/sandbox/parse-bwrap-child-pid.js";
import { parseWarmStatusLine } from "../../../src/core/sandbox/warm-sandbox-protocol.js";

describe("EndMarkerScanner", () => {
  it("finds a marker cut across chunks and keeps everything before it", () => {
    const scanner = new EndMarkerScanner(Buffer.from("agentforge-end-1234"));
    const kept: Buffer[] = [];
    for (const part of ["hello agent", "forge-e", "nd-12", "34 after"])
      kept.push(scanner.push(Buffer.from(part)));
    expect(scanner.isDone).toBe(true);
    expect(Buffer.concat(kept).toString()).toBe("hello ");
  });

  it("does not take a partial marker in the output for the end", () => {
    const scanner = new EndMarkerScanner(Buffer.from("END-42"));
    const first = scanner.push(Buffer.from("text END-4"));
    const second = scanner.push(Buffer.from("1 more END-42"));
    expect(scanner.isDone).toBe(true);
    expect(Buffer.concat([first, second]).toString()).toBe("text END-41 more ");
  });

  it("gives back what it held when the stream ends without the marker", () => {
    const scanner = new EndMarkerScanner(Buffer.from("END-42"));
    const first = scanner.push(Buffer.from("partial output END"));
    expect(Buffer.concat([first, scanner.flush()]).toString()).toBe("partial output END");
    expect(scanner.isDone).toBe(false);
  });
});

describe("parseBwrapChildPid", () => {
  it("reads child-pid from bwrap's info and rejects anything else", () => {
    expect(parseBwrapChildPid('{\n    "child-pid": 4242,\n    "net-namespace": 4026532182\n}\n')).toEqual({
      success: true,
      value: 4242,
    });
    expect(parseBwrapChildPid("not json").success).toBe(false);
    expect(parseBwrapChildPid('{"child-pid": "1"}').success).toBe(false);
    expect(parseBwrapChildPid('{"child-pid": 1}').success).toBe(false);
  });
});

describe("parseWarmStatusLine", () => {
  const nonce = "0123456789abcdef0123456789abcdef";
  it("reads the program's ready, started and done lines and nothing else", () => {
    expect(parseWarmStatusLine("ready")).toEqual({ kind: "ready" });
    expect(parseWarmStatusLine(`started ${nonce}`)).toEqual({ kind: "started", nonce });
    expect(parseWarmStatusLine(`done ${nonce} 3 dirty`)).toEqual({
      kind: "done",
      nonce,
      code: 3,
      clean: false,
    });
    for (const forged of [`started ${nonce} 12`, "started abc", `done ${nonce} 3`, "ready "])
      expect(parseWarmStatusLine(forged)).toBeUndefined();
  });
});
