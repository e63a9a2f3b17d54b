import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { spawn } from "node:child_process";
import { appendFile, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { openIntakeJournal, type JournaledDelivery } from "../../src/queue/open-intake-journal.js";
import { makeTempDir, removeDir } from "./queue-test-helpers.js";

const childScript = fileURLToPath(new URL("./fixtures/admit-then-hang.ts", import.meta.url));

function delivery(id: string): JournaledDelivery {
  return {
    id,
    name: "issue_comment",
    payload: { comment: { body: `@agentforge fix ${id}` } },
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
    const journal = await openIntakeJournal({ filePath, compactAtBytes: 2_000 });
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
