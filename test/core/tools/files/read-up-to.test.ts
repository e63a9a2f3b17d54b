import { closeSync, openSync } from "node:fs";
import { mkdtemp, open, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { readUpTo, readUpToSync } from "../../../../src/core/tools/files/read-up-to.js";

let dir: string;
let file: string;
const content = Buffer.from("0123456789".repeat(1000));
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "agentforge-read-up-to-"));
  file = path.join(dir, "f.bin");
  await writeFile(file, content);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("readUpTo / readUpToSync", () => {
  it("read the whole file past a small size hint, and never past the limit", async () => {
    const descriptor = openSync(file, "r");
    const handle = await open(file, "r");
    try {
      for (const [limit, hint] of [
        [20_000, 1],
        [20_000, 10_001],
        [4_321, 100],
        [0, 5],
      ] as const) {
        const expected = content.subarray(0, Math.min(limit, content.length));
        expect(readUpToSync(descriptor, limit, hint).equals(expected)).toBe(true);
        expect((await readUpTo(descriptor, limit, hint)).equals(expected)).toBe(true);
        expect((await readUpTo(handle, limit, hint)).equals(expected)).toBe(true);
      }
    } finally {
      closeSync(descriptor);
      await handle.close();
    }
  });
});
