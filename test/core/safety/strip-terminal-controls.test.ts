import { describe, expect, it } from "@jest/globals";
import { stripTerminalControls } from "../../../src/core/safety/strip-terminal-controls.js";

describe("stripTerminalControls", () => {
  it("returns text without control characters unchanged (tabs, newlines and any script included)", () => {
    const alphabet = [
      "a",
      "Z",
      "0",
      " ",
      "\t",
      "\n",
      "é",
      "→",
      "字",
      "😀",
      "[",
      "m",
      ";",
      "\u00a0",
      "\u2028",
    ];
    let seed = 7;
    const next = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let sample = 0; sample < 500; sample += 1) {
      const length = next() % 80;
      const text = Array.from({ length }, () => alphabet[next() % alphabet.length]).join("");
      expect(stripTerminalControls(text)).toBe(text);
    }
  });

  it("still removes every kind of control: C1 CSI, ESC sequences, overstrike, carriage-return redraws, DEL", () => {
    expect(stripTerminalControls("\x9b31mred\x9b0m")).toBe("red");
    expect(stripTerminalControls("\x1b[1mbold\x1b[0m \x1b]0;title\x07x")).toBe("bold x");
    expect(stripTerminalControls("_\bu B\bB")).toBe("u B");
    expect(stripTerminalControls("10%\r50%\r100%\nnext\r\n")).toBe("100%\nnext\n");
    expect(stripTerminalControls("a\x7fb\x00c\x85d")).toBe("abcd");
  });
});
