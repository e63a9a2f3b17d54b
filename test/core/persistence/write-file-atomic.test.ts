import { describe, expect, it } from "@jest/globals";
import { readdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  temporaryPathFor,
  writeFileAtomic,
  writeFileAtomicSync,
} from "../../../src/core/persistence/write-file-atomic.js";
import { PersistenceError } from "../../../src/core/persistence/persistence-error.js";
import { runAndKill } from "./crash-child.js";
import { sourceUrl, withTempDir } from "./persistence-test-helpers.js";

const isPosix = process.platform !== "win32";

describe("writeFileAtomic", () => {
  it("writes new files with mode 0600 and replaces existing content", async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, "state.json");
      await writeFileAtomic(path, "first");
      expect(await readFile(path, "utf8")).toBe("first");
      if (isPosix) expect((await stat(path)).mode & 0o777).toBe(0o600);
      writeFileAtomicSync(path, Buffer.from("second"));
      expect(await readFile(path, "utf8")).toBe("second");
      expect(await readdir(dir)).toEqual(["state.json"]);
    });
  });

  it("replaces a symlink at the target instead of writing through it", async () => {
    await withTempDir(async (dir) => {
      const outside = join(dir, "outside.txt");
      await writeFile(outside, "keep me");
      const path = join(dir, "state.json");
      await symlink(outside, path);
      await writeFileAtomic(path, "new");
      expect(await readFile(outside, "utf8")).toBe("keep me");
      expect(await readFile(path, "utf8")).toBe("new");
    });
  });

  it("a crash before the rename leaves the old content at the target", async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, "state.json");
      await writeFileAtomic(path, JSON.stringify({ version: "old" }));
      // What a crash between write and rename leaves: a partial temp file beside the target.
      const temporary = temporaryPathFor(path);
      await writeFile(temporary, '{"version": "ne');
      expect(JSON.parse(await readFile(path, "utf8"))).toEqual({ version: "old" });
      await writeFileAtomic(path, JSON.stringify({ version: "new" }));
      expect(JSON.parse(await readFile(path, "utf8"))).toEqual({ version: "new" });
    });
  });

  it("reports a missing directory as IO_ERROR and leaves no temp file", async () => {
    await withTempDir(async (dir) => {
      const error = await writeFileAtomic(join(dir, "missing", "x.json"), "x").catch(
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(PersistenceError);
      expect((error as PersistenceError).code).toBe("IO_ERROR");
      expect(await readdir(dir)).toEqual([]);
    });
  });

  it("a process killed with SIGKILL mid-rewrite leaves a complete old or new file", async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, "checkpoint.json");
      const script = `
import { writeFileAtomicSync } from ${JSON.stringify(sourceUrl("src/core/persistence/write-file-atomic.ts"))};
const filler = "f".repeat(256 * 1024);
for (let n = 0; ; n += 1) {
  writeFileAtomicSync(${JSON.stringify(path)}, JSON.stringify({ n, filler, end: n }));
  if (n === 5) process.stdout.write("ready\\n");
}
`;
      const { signal } = await runAndKill(dir, script, 300);
      expect(signal).toBe("SIGKILL");
      const document = JSON.parse(await readFile(path, "utf8")) as { n: number; end: number; filler: string };
      expect(document.n).toBeGreaterThanOrEqual(5);
      expect(document.end).toBe(document.n);
      expect(document.filler).toHaveLength(256 * 1024);
    });
  });
});
