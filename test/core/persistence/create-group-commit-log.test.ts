import { describe, expect, it } from "@jest/globals";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { createGroupCommitLog } from "../../../src/core/persistence/create-group-commit-log.js";
import { parseJsonLines } from "../../../src/core/persistence/json-lines.js";
import { sourceUrl, withTempDir } from "./persistence-test-helpers.js";

describe("group-commit log", () => {
  it("a write-through line is in the file when append returns, before any flush", async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, "log.jsonl");
      const log = createGroupCommitLog(path, { flushIntervalMs: 60_000 });
      log.append({ n: 1 });
      log.append({ n: 2 });
      expect(parseJsonLines(await readFile(path, "utf8")).values).toEqual([{ n: 1 }, { n: 2 }]);
      expect(log.bytesWritten).toBe(Buffer.byteLength('{"n":1}\n{"n":2}\n'));
      await log.close();
      expect(() => log.append({ n: 3 })).toThrow(/closed/);
    });
  });

  it("gathered lines are written together after the current moment, and by flush at once", async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, "trace.jsonl");
      const log = createGroupCommitLog(path, { writeThrough: false });
      log.append({ a: 1 });
      log.append({ b: 2 });
      // Synchronous read: an await here would let the gathered write happen first.
      expect(readFileSync(path, "utf8")).toBe("");
      await new Promise((resolve) => setImmediate(resolve));
      expect(parseJsonLines(await readFile(path, "utf8")).values).toEqual([{ a: 1 }, { b: 2 }]);
      log.append({ c: 3 });
      await log.flush();
      expect(parseJsonLines(await readFile(path, "utf8")).values).toHaveLength(3);
      await log.close();
    });
  });

  it("a process killed right after appending loses no write-through line", async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, "log.jsonl");
      const script = `
        import { createGroupCommitLog } from ${JSON.stringify(sourceUrl("src/core/persistence/create-group-commit-log.ts"))};
        const log = createGroupCommitLog(${JSON.stringify(path)}, { flushIntervalMs: 60_000 });
        for (let n = 0; n < 500; n += 1) log.append({ n });
        process.kill(process.pid, "SIGKILL");
      `;
      const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
        encoding: "utf8",
      });
      expect(child.signal).toBe("SIGKILL");
      const content = parseJsonLines(await readFile(path, "utf8"));
      expect(content.values).toHaveLength(500);
      expect(content.truncatedLastLine).toBeNull();
    });
  });
});
