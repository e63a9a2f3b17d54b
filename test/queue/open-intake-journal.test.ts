import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { spawn } from "node:child_process";
import { appendFile, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  openIntakeJournal,
  toPayloadJson,
  type JournaledDelivery,
} from "../../src/queue/open-intake-journal.js";
import { admittedLine, readJournalText, type PayloadJson } from "../../src/queue/intake-journal-records.js";
import { makeTempDir, removeDir } from "./queue-test-helpers.js";

const childScript = fileURLToPath(new URL("./fixtures/admit-then-hang.ts", import.meta.url));

function delivery(id: string): JournaledDelivery {
  return {
    id,
    name: "issue_comment",
    payloadJson: toPayloadJson({ comment: { body: `@agentforge fix ${id}` } }),
    receivedAt: 1,
  };
}

/** Runs the child until it says "ready", kills it with SIGKILL and returns its first line. */
function admitInChildThenKill(filePath: string, count: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", childScript, filePath, String(count)], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NODE_OPTIONS: "" },
    });
    let output = "";
    let errors = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
      if (output.includes("ready\n")) child.kill("SIGKILL");
    });
    child.stderr.on("data", (chunk: Buffer) => (errors += chunk.toString("utf8")));
    child.on("error", reject);
    child.on("exit", () => {
      if (!output.includes("ready\n")) reject(new Error(`child ended before admitting: ${errors}`));
      else resolve(output.split("\n")[0] ?? "");
    });
  });
}

describe("intake journal", () => {
  let dir: string;
  let filePath: string;
  beforeEach(async () => {
    dir = await makeTempDir();
    filePath = join(dir, "intake-journal.jsonl");
  });
  afterEach(async () => {
    await removeDir(dir);
  });

  it("writes concurrent admissions with fewer data syncs than records (group commit)", async () => {
    const journal = await openIntakeJournal({ filePath });
    const admitted = await Promise.all(
      Array.from({ length: 40 }, (_, index) => journal.admit(delivery(`d-${index}`))),
    );
    expect(admitted.every((isNew) => isNew)).toBe(true);
    const stats = journal.stats();
    expect(stats.records).toBe(40);
    expect(stats.flushes).toBeGreaterThanOrEqual(1);
    expect(stats.flushes).toBeLessThan(40);
    await journal.close();
    const lines = (await readFile(filePath, "utf8")).trim().split("\n");
    expect(lines).toHaveLength(40);
  });

  it("tells a redelivery apart: in flight, pending, settled, and after reopening", async () => {
    const journal = await openIntakeJournal({ filePath });
    expect(await Promise.all([journal.admit(delivery("a")), journal.admit(delivery("a"))])).toEqual([
      true,
      false,
    ]);
    expect(await journal.admit(delivery("a"))).toBe(false);
    await journal.settle("a");
    expect(await journal.admit(delivery("a"))).toBe(false);
    await journal.close();
    const reopened = await openIntakeJournal({ filePath });
    expect(await reopened.admit(delivery("a"))).toBe(false);
    expect(reopened.pending()).toEqual([]);
    await reopened.close();
  });

  it("keeps what was admitted and not settled across a reopen, and drops what was settled", async () => {
    const journal = await openIntakeJournal({ filePath });
    await Promise.all(["one", "two", "three"].map((id) => journal.admit(delivery(id))));
    await journal.settle("two");
    await journal.close();
    const reopened = await openIntakeJournal({ filePath });
    expect(reopened.pending()).toEqual([delivery("one"), delivery("three")]);
    await reopened.close();
  });

  it("writes a payload's text into its line as it came, even pretty-printed with CRLF line breaks", async () => {
    const text =
      '{\r\n  "comment": {\r\n    "body": "line one\\nline two \u2028 \\"quoted\\" \\\\"\r\n  },\n  "n": [1, {}]\n}';
    const journal = await openIntakeJournal({ filePath });
    await journal.admit({
      id: "pretty",
      name: "issue_comment",
      payloadJson: text as PayloadJson,
      receivedAt: 1,
    });
    await journal.close();
    const lines = (await readFile(filePath, "utf8")).split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain('"body": "line one\\nline two');
    const reopened = await openIntakeJournal({ filePath });
    const [read] = reopened.pending();
    expect(JSON.parse(read?.payloadJson ?? "null")).toEqual(JSON.parse(text));
    await reopened.close();
  });

  it("reads back every payload text it wrote as the value that text parses to (property)", () => {
    // Any JSON value, printed compact or indented with spaces, tabs, LF or CRLF; strings of any
    // code unit, so quotes, backslashes, escapes of line breaks and U+2028 come up.
    const indent = fc.constantFrom(undefined, " ", "\t", "\r", "  \r");
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: "binary" }), indent, (value, space) => {
        const text = JSON.stringify(value, null, space) as PayloadJson;
        const line = admittedLine({ id: "p", name: "issue_comment", payloadJson: text, receivedAt: 7 });
        expect(line.indexOf("\n")).toBe(line.length - 1);
        const read = readJournalText(line);
        expect(read.damagedLines).toBe(0);
        const entry = read.pending.get("p");
        expect(entry?.receivedAt).toBe(7);
        expect(JSON.parse(entry?.payloadJson ?? "null")).toEqual(JSON.parse(text));
      }),
      { numRuns: 500 },
    );
  });

  it("drops a torn last line and counts a damaged one in the middle", async () => {
    const journal = await openIntakeJournal({ filePath });
    await journal.admit(delivery("kept"));
    await journal.close();
    await appendFile(filePath, 'not json\n{"kind":"admitted","id":"torn"');
    const reopened = await openIntakeJournal({ filePath });
    expect(reopened.pending().map((entry) => entry.id)).toEqual(["kept"]);
    expect(reopened.stats().damagedLines).toBe(1);
    await reopened.close();
  });

  it("compacts past its size limit without losing a pending admission", async () => {
    const journal = await openIntakeJournal({ filePath, compactAtBytes: 2_000, allocateBytes: 4096 });
    for (let index = 0; index < 30; index += 1) {
      await journal.admit(delivery(`c-${index}`));
      if (index !== 7) await journal.settle(`c-${index}`);
    }
    await journal.close();
    const text = await readFile(filePath, "utf8");
    // Without compaction all 30 admissions would still be in the file.
    expect(text.split("\n").filter((line) => line.includes('"admitted"')).length).toBeLessThan(30);
    const reopened = await openIntakeJournal({ filePath });
    expect(reopened.pending().map((entry) => entry.id)).toEqual(["c-7"]);
    await reopened.close();
  });

  it("writes a settlement without a data sync of its own, and keeps it across a clean close", async () => {
    const journal = await openIntakeJournal({ filePath });
    await journal.admit(delivery("s"));
    expect(journal.stats()).toMatchObject({ records: 1, flushes: 1 });
    await journal.settle("s");
    expect(journal.stats()).toMatchObject({ records: 2, flushes: 1 });
    await journal.admit(delivery("t"));
    expect(journal.stats()).toMatchObject({ records: 3, flushes: 2 });
    await journal.close();
    const reopened = await openIntakeJournal({ filePath });
    expect(reopened.pending().map((entry) => entry.id)).toEqual(["t"]);
    expect(await reopened.admit(delivery("s"))).toBe(false);
    await reopened.close();
  });

  it("admits into space written ahead, so the file's size does not change with each record", async () => {
    const journal = await openIntakeJournal({ filePath, allocateBytes: 64 * 1024 });
    const before = (await stat(filePath)).size;
    expect(before).toBeGreaterThanOrEqual(64 * 1024);
    for (let index = 0; index < 10; index += 1) await journal.admit(delivery(`p-${index}`));
    expect((await stat(filePath)).size).toBe(before);
    await journal.close();
    const text = await readFile(filePath, "utf8");
    expect(text.includes("\0")).toBe(false);
    expect(text.trim().split("\n")).toHaveLength(10);
  });

  it("grows the space written ahead when records outrun it, losing none", async () => {
    const journal = await openIntakeJournal({ filePath, allocateBytes: 256 });
    await Promise.all(Array.from({ length: 12 }, (_, index) => journal.admit(delivery(`g-${index}`))));
    expect((await stat(filePath)).size).toBeGreaterThan(256);
    await journal.close();
    const reopened = await openIntakeJournal({ filePath });
    expect(reopened.pending()).toHaveLength(12);
    await reopened.close();
  });

  it("reads a journal a crash left with zeros after a torn record: the whole records, then new ones after them", async () => {
    // The record as it is on disk: the payload as a JSON value (written so by every version).
    const whole = `${JSON.stringify({ kind: "admitted", id: "whole", name: "issue_comment", payload: { n: 1 }, receivedAt: 1 })}\n`;
    await writeFile(
      filePath,
      Buffer.concat([Buffer.from(`${whole}{"kind":"admitted","id":"to`), Buffer.alloc(4096)]),
    );
    const journal = await openIntakeJournal({ filePath, allocateBytes: 4096 });
    expect(journal.pending().map((entry) => entry.id)).toEqual(["whole"]);
    expect(journal.stats().damagedLines).toBe(0);
    await journal.admit(delivery("after"));
    await journal.close();
    const reopened = await openIntakeJournal({ filePath });
    expect(reopened.pending().map((entry) => entry.id)).toEqual(["whole", "after"]);
    await reopened.close();
  });

  it("keeps every admission whose promise resolved when the process is killed with SIGKILL right after", async () => {
    const line = await admitInChildThenKill(filePath, 25);
    const reported = JSON.parse(line) as { admitted: boolean[] };
    expect(reported.admitted.filter((isNew) => isNew)).toHaveLength(25);
    const reopened = await openIntakeJournal({ filePath });
    expect(
      reopened
        .pending()
        .map((entry) => entry.id)
        .sort(),
    ).toEqual(Array.from({ length: 25 }, (_, index) => `crash-${index}`).sort());
    await reopened.close();
  });
});
