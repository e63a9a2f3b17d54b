import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { makeTempDir, openTestQueue, removeDir } from "./queue-test-helpers.js";

const childScript = fileURLToPath(new URL("./fixtures/enqueue-then-hang.ts", import.meta.url));

/** Runs the child until it says "ready", kills it with SIGKILL and returns the lines it printed. */
function enqueueInChildThenKill(args: string[]): Promise<{ lines: string[]; signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", childScript, ...args], {
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
    child.on("exit", (_code, signal) => {
      if (!output.includes("ready\n")) reject(new Error(`child ended before enqueueing: ${errors}`));
      else resolve({ lines: output.trim().split("\n"), signal });
    });
  });
}

describe("embedded queue durability", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await makeTempDir();
  });
  afterEach(async () => {
    await removeDir(dir);
  });

  it("keeps a task whose enqueue returned, when the process is killed with SIGKILL right after", async () => {
    const filePath = join(dir, "queue.sqlite");
    const { lines, signal } = await enqueueInChildThenKill([filePath, "crash-delivery", "o/r#5"]);
    expect(signal).toBe("SIGKILL");
    const accepted = JSON.parse(lines[0]!) as { taskId: string; accepted: boolean };
    expect(accepted.accepted).toBe(true);

    const queue = openTestQueue(dir);
    try {
      expect(await queue.get(accepted.taskId)).toMatchObject({
        state: "queued",
        payload: { label: "crash-delivery" },
      });
      expect(await queue.hasDelivery("crash-delivery")).toBe(true);
      expect((await queue.claim("w"))?.taskId).toBe(accepted.taskId);
    } finally {
      await queue.close();
    }
  });

  it("keeps every task accepted by two processes writing at once, each exactly once", async () => {
    const filePath = join(dir, "queue.sqlite");
    const [first, second] = await Promise.all([
      enqueueInChildThenKill([filePath, "a", "o/r#a", "25"]),
      enqueueInChildThenKill([filePath, "b", "o/r#b", "25"]),
    ]);
    const accepted = [...first.lines, ...second.lines].filter((line) => line.startsWith("{"));
    expect(accepted).toHaveLength(50);
    const queue = openTestQueue(dir, { globalConcurrency: 100, perInstallationConcurrency: 100 });
    try {
      expect((await queue.stats()).queued).toBe(50);
      const labels = new Set<string>();
      for (let claimed = await queue.claim("w"); claimed !== null; claimed = await queue.claim("w")) {
        labels.add(claimed.payload.label);
      }
      expect(labels.size).toBe(50);
    } finally {
      await queue.close();
    }
  });
});
