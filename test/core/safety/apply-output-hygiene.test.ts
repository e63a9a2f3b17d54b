import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { mkdtemp, readFile, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { applyOutputHygiene, safeFileStem } from "../../../src/core/safety/apply-output-hygiene.js";
import { createRedactor } from "../../../src/core/safety/create-redactor.js";
import { stripTerminalControls } from "../../../src/core/safety/strip-terminal-controls.js";
import { BASE62, createRandom } from "./secret-corpus.js";

const random = createRandom(42);

describe("stripTerminalControls", () => {
  it("removes colours, cursor moves, titles and OSC 8 hyperlinks but keeps their text", () => {
    const raw =
      "\u001b[1;31merror\u001b[0m: \u001b]8;;https://example.com/docs\u001b\\see docs\u001b]8;;\u001b\\" +
      "\u001b]0;window title\u0007\u001b[2K\u001b[1G done \u001bPq#0;2;0;0;0\u001b\\\u009b32mok";
    expect(stripTerminalControls(raw)).toBe("error: see docs done ok");
  });

  it("normalises CRLF and keeps the last state of a progress line", () => {
    const raw = "start\r\nprogress 10%\rprogress 50%\rprogress 100%\r\nend\r";
    expect(stripTerminalControls(raw)).toBe("start\nprogress 100%\nend");
  });

  it("drops control characters except tab and newline, and resolves overstrike", () => {
    const raw = "a\u0000b\u0007c\td\u000be\u007ff\n" + "B\bBo\bol\bld\bd _\bu";
    expect(stripTerminalControls(raw)).toBe("abc\tdef\nBold u");
  });
});

describe("applyOutputHygiene", () => {
  let scratchDir: string;

  beforeEach(async () => {
    scratchDir = join(await mkdtemp(join(tmpdir(), "agentforge-hygiene-")), "scratch");
  });

  afterEach(async () => {
    await rm(dirname(scratchDir), { recursive: true, force: true });
  });

  it("returns short output cleaned and not truncated, saving nothing", async () => {
    const result = await applyOutputHygiene("\u001b[32mok\u001b[0m\r\n", {
      maxChars: 100,
      label: "bash",
      scratchDir,
    });
    expect(result).toEqual({ text: "ok\n", truncated: false, omittedChars: 0 });
    await expect(readdir(scratchDir)).rejects.toThrow();
  });

  it("keeps head and tail, says how much was omitted and where the full output is", async () => {
    const lines = Array.from({ length: 2000 }, (_, index) => `line ${index} \u001b[33mwarn\u001b[0m`);
    const result = await applyOutputHygiene(lines.join("\n"), {
      maxChars: 2000,
      label: "bash call_7/../../etc",
      scratchDir,
    });
    expect(result.truncated).toBe(true);
    expect(result.text.length).toBeLessThanOrEqual(2000);
    expect(result.text.startsWith("line 0 warn\nline 1 warn\n")).toBe(true);
    expect(result.text.endsWith("line 1999 warn")).toBe(true);
    expect(result.fullOutputPath).toBeDefined();
    const path = result.fullOutputPath ?? "";
    expect(dirname(path)).toBe(scratchDir);
    expect(path).toMatch(/bash-call_7-.-.-etc-[0-9a-f]{8}\.txt$/);
    expect(result.text).toContain(
      `[… ${result.omittedChars} characters omitted; full output saved at ${path} …]`,
    );
    const saved = await readFile(path, "utf8");
    expect(saved).toBe(
      lines.map((line) => line.replace(`\u001b[33m`, "").replace(`\u001b[0m`, "")).join("\n"),
    );
    expect(result.omittedChars).toBe(saved.length - result.text.replace(/\n\[….*…\]\n/, "").length);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it("honours headChars and tailChars, and works without a scratch folder", async () => {
    const text = "a".repeat(500) + "b".repeat(500);
    const result = await applyOutputHygiene(text, {
      maxChars: 300,
      headChars: 50,
      tailChars: 20,
      label: "x",
    });
    expect(result.text).toBe(`${"a".repeat(50)}\n[… 930 characters omitted …]\n${"b".repeat(20)}`);
    expect(result.fullOutputPath).toBeUndefined();
  });

  it("redacts the whole output before cutting, and the saved copy too", async () => {
    const token = `ghp_${random(BASE62, 36)}`;
    const filler = "x".repeat(1000);
    // The cut would fall in the middle of the token if truncation came first.
    const text = `${filler.slice(0, 990)} ${token} ${filler}`;
    const redactor = createRedactor();
    const result = await applyOutputHygiene(text, {
      maxChars: 1300,
      headChars: 1000,
      tailChars: 20,
      label: "cat",
      scratchDir,
      redactor,
    });
    for (let start = 0; start + 6 <= token.length; start += 1) {
      expect(result.text).not.toContain(token.slice(start, start + 6));
    }
    expect(result.text).toContain("[REDACTED");
    const saved = await readFile(result.fullOutputPath ?? "", "utf8");
    expect(saved).not.toContain(token);
    expect(saved).toContain("[REDACTED:github-token]");
  });

  it("names saved files safely", () => {
    expect(safeFileStem("../../etc/passwd")).toBe("etc-passwd");
    expect(safeFileStem("...")).toBe("output");
    expect(safeFileStem("mcp:server/tool name")).toBe("mcp-server-tool-name");
  });
});
