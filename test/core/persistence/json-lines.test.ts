import { describe, expect, it } from "@jest/globals";
import { appendFile, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createGroupCommitLog } from "../../../src/core/persistence/create-group-commit-log.js";
import { readJsonLines } from "../../../src/core/persistence/json-lines.js";
import { PersistenceError } from "../../../src/core/persistence/persistence-error.js";
import { runAndKill } from "./crash-child.js";
import { sourceUrl, withTempDir } from "./persistence-test-helpers.js";

const isPosix = process.platform !== "win32";

describe("JSON Lines logs", () => {
  it("appends values one per line, file mode 0600", async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, "log.jsonl");
      const appender = createGroupCommitLog(path);
      appender.append({ a: 1 });
      appender.append("two\nlines");
      appender.append([3]);
      await appender.close();
      const reopened = createGroupCommitLog(path);
      reopened.append({ d: 4 });
      reopened.append(null);
      await reopened.close();
      expect(await readFile(path, "utf8")).toBe('{"a":1}\n"two\\nlines"\n[3]\n{"d":4}\nnull\n');
      const content = await readJsonLines(path);
      expect(content.values).toEqual([{ a: 1 }, "two\nlines", [3], { d: 4 }, null]);
      expect(content.truncatedLastLine).toBeNull();
      expect(content.invalidLines).toEqual([]);
      if (isPosix) expect((await stat(path)).mode & 0o777).toBe(0o600);
    });
  });

  it("keeps two hundred appends whole and in call order", async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, "log.jsonl");
      const appender = createGroupCommitLog(path);
      for (let i = 0; i < 200; i += 1) appender.append({ i, pad: "x".repeat(i % 50) });
      await appender.close();
      const { values } = await readJsonLines(path);
      expect(values.map((value) => (value as { i: number }).i)).toEqual(
        Array.from({ length: 200 }, (_, i) => i),
      );
    });
  });

  it("refuses values that are not JSON", async () => {
    await withTempDir(async (dir) => {
      const appender = createGroupCommitLog(join(dir, "log.jsonl"));
      expect(() => appender.append(undefined)).toThrow(PersistenceError);
      const cyclic: Record<string, unknown> = {};
      cyclic["self"] = cyclic;
      expect(() => appender.append(cyclic)).toThrow(PersistenceError);
      await appender.close();
    });
  });

  it("reports a torn last line instead of failing, even when its bytes parse", async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, "log.jsonl");
      await writeFile(path, '{"i":0}\n{"i":1}\n{"i":2, "tex');
      const torn = await readJsonLines(path);
      expect(torn.values).toEqual([{ i: 0 }, { i: 1 }]);
      expect(torn.truncatedLastLine).toEqual({ lineNumber: 3, text: '{"i":2, "tex' });

      await writeFile(path, '{"i":0}\n12');
      const prefixOfNumber = await readJsonLines(path);
      expect(prefixOfNumber.values).toEqual([{ i: 0 }]);
      expect(prefixOfNumber.truncatedLastLine?.text).toBe("12");
    });
  });

  it("an appender opened after a crash starts a fresh line after the torn one", async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, "log.jsonl");
      await writeFile(path, '{"i":0}\n{"i":1, "half');
      const appender = createGroupCommitLog(path);
      appender.append({ i: 2 });
      await appender.close();
      const second = createGroupCommitLog(path);
      second.append({ i: 3 });
      await second.close();
      const content = await readJsonLines(path);
      expect(content.values).toEqual([{ i: 0 }, { i: 2 }, { i: 3 }]);
      expect(content.truncatedLastLine).toBeNull();
      expect(content.invalidLines).toHaveLength(1);
      expect(content.invalidLines[0]?.lineNumber).toBe(2);
    });
  });

  it("a missing log is NOT_FOUND", async () => {
    await withTempDir(async (dir) => {
      await expect(readJsonLines(join(dir, "none.jsonl"))).rejects.toMatchObject({ code: "NOT_FOUND" });
    });
  });

  it("a process killed with SIGKILL while appending leaves a readable, gap-free prefix", async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, "killed.jsonl");
      const script = `
import { createGroupCommitLog } from ${JSON.stringify(sourceUrl("src/core/persistence/create-group-commit-log.ts"))};
const appender = createGroupCommitLog(${JSON.stringify(path)});
for (let i = 0; ; i += 1) {
  appender.append({ i, payload: "p".repeat(200 + (i % 300)) });
  if (i === 50) process.stdout.write("ready\\n");
}
`;
      const { signal } = await runAndKill(dir, script, 300);
      expect(signal).toBe("SIGKILL");
      const content = await readJsonLines(path);
      expect(content.invalidLines).toEqual([]);
      expect(content.values.length).toBeGreaterThan(50);
      content.values.forEach((value, index) => {
        expect(value).toEqual({ i: index, payload: "p".repeat(200 + (index % 300)) });
      });
      // The log stays usable: the next run appends after whatever the crash left.
      await appendFile(path, "");
      const resumed = createGroupCommitLog(path);
      resumed.append({ resumed: true });
      await resumed.close();
      const after = await readJsonLines(path);
      expect(after.values.at(-1)).toEqual({ resumed: true });
      expect(after.values.length).toBe(content.values.length + 1);
    });
  });
});
