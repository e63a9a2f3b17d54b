import { describe, expect, it } from "@jest/globals";
import { appendFile, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ChatMessage } from "../../../src/core/model/model-types.js";
import { createCheckpointStore } from "../../../src/core/persistence/create-checkpoint-store.js";
import type { RunCheckpoint } from "../../../src/core/persistence/run-checkpoint.js";
import { runPaths } from "../../../src/core/persistence/run-paths.js";
import { makeCheckpoint, toolCall } from "./checkpoint-fixtures.js";
import { withTempDir } from "./persistence-test-helpers.js";

/** What the loop does: one array that grows, recorded after each step. */
function growingRun(runId: string, turns: number): RunCheckpoint[] {
  const history: ChatMessage[] = [{ role: "user", content: "go" }];
  const states: RunCheckpoint[] = [];
  for (let turn = 1; turn <= turns; turn += 1) {
    history.push({
      role: "assistant",
      content: null,
      tool_calls: [toolCall(`c${turn}`, "read_file", { path: `f${turn}.ts` })],
    });
    history.push({ role: "tool", tool_call_id: `c${turn}`, content: `content of f${turn}.ts `.repeat(20) });
    states.push(
      makeCheckpoint(runId, {
        turn,
        history: history.slice(),
        usage: {
          promptTokens: turn * 10,
          completionTokens: turn,
          totalTokens: turn * 11,
          costUsd: turn / 1000,
        },
        pinnedFacts: { goal: "go", filesRead: [`f${Math.ceil(turn / 3)}.ts`] },
      }),
    );
  }
  return states;
}

const copy = (checkpoint: RunCheckpoint): RunCheckpoint =>
  JSON.parse(JSON.stringify(checkpoint)) as RunCheckpoint;

describe("checkpoint log", () => {
  it("appends small deltas after one snapshot, and load rebuilds every recorded state", async () => {
    await withTempDir(async (dataDir) => {
      const store = createCheckpointStore(dataDir);
      const log = await store.openCheckpointLog("run-1");
      const paths = runPaths(dataDir, "run-1");
      const states = growingRun("run-1", 30);
      const snapshots: RunCheckpoint[] = [];
      for (const state of states) {
        log.record(state);
        snapshots.push(copy(state));
        // While the run goes on, a reader (resume after a crash) sees exactly the last record.
        expect(await store.load("run-1")).toEqual(snapshots.at(-1));
      }
      // The snapshot was written once; the deltas hold only what each turn added.
      const snapshotText = await readFile(paths.checkpoint, "utf8");
      expect(JSON.parse(snapshotText).turn).toBe(1);
      const deltaLines = (await readFile(paths.checkpointDelta, "utf8")).trim().split("\n");
      expect(deltaLines).toHaveLength(30); // header + 29 deltas
      for (const line of deltaLines.slice(1)) {
        const delta = JSON.parse(line) as { changes: unknown[] };
        expect(delta.changes).toHaveLength(2);
      }
      await log.close();
      // Closing folds the deltas into one complete snapshot.
      await expect(stat(paths.checkpointDelta)).rejects.toMatchObject({ code: "ENOENT" });
      expect(await store.load("run-1")).toEqual(snapshots.at(-1));
    });
  });

  it("records the loop's live array correctly although it keeps growing after each record", async () => {
    await withTempDir(async (dataDir) => {
      const store = createCheckpointStore(dataDir);
      const log = await store.openCheckpointLog("run-1");
      const live: ChatMessage[] = [{ role: "user", content: "go" }];
      log.record(makeCheckpoint("run-1", { history: live }));
      live.push({ role: "assistant", content: "first" });
      log.record(makeCheckpoint("run-1", { history: live, turn: 1 }));
      live.push({ role: "user", content: "more" }, { role: "assistant", content: "second" });
      log.record(makeCheckpoint("run-1", { history: live, turn: 2 }));
      const loaded = await store.load("run-1");
      expect(loaded.history.map((message) => message.content)).toEqual(["go", "first", "more", "second"]);
      await log.close();
    });
  });

  it("rewritten and dropped messages (pruning, compaction) come back exactly", async () => {
    await withTempDir(async (dataDir) => {
      const store = createCheckpointStore(dataDir);
      const log = await store.openCheckpointLog("run-1");
      const [, , , , , , state] = growingRun("run-1", 8);
      const full = state!.history;
      log.record({ ...state!, history: full.slice() });
      // Pruning replaces an old observation in place.
      const pruned = full.map((message, index) =>
        index === 2 && message.role === "tool" ? { ...message, content: "[pruned: f1.ts]" } : message,
      );
      log.record({ ...state!, turn: 9, history: pruned });
      expect((await store.load("run-1")).history).toEqual(pruned);
      // Compaction replaces the transcript by a summary and the last turn.
      const compacted: ChatMessage[] = [{ role: "user", content: "summary of turns 1-7" }, ...full.slice(-2)];
      log.record({ ...state!, turn: 10, history: compacted, pinnedFacts: { goal: "go", filesRead: ["x"] } });
      const loaded = await store.load("run-1");
      expect(loaded.history).toEqual(compacted);
      expect(loaded.turn).toBe(10);
      expect(loaded.pinnedFacts).toEqual({ goal: "go", filesRead: ["x"] });
      await log.close();
      expect(await store.load("run-1")).toEqual(loaded);
    });
  });

  it("folds the deltas into a new snapshot once they outgrow it, and ignores the stale log of an old snapshot", async () => {
    await withTempDir(async (dataDir) => {
      const store = createCheckpointStore(dataDir);
      const log = await store.openCheckpointLog("run-1", { compactAfterBytes: 2_000 });
      const paths = runPaths(dataDir, "run-1");
      const states = growingRun("run-1", 40);
      const generations = new Set<string>();
      for (const state of states) {
        log.record(state);
        generations.add(
          (JSON.parse(await readFile(paths.checkpoint, "utf8")) as { generation: string }).generation,
        );
      }
      expect(generations.size).toBeGreaterThan(1);
      const deltaBytes = (await stat(paths.checkpointDelta)).size;
      const snapshotBytes = (await stat(paths.checkpoint)).size;
      expect(deltaBytes).toBeLessThanOrEqual(Math.max(2_000, 2 * snapshotBytes) + 2_000);
      expect(await store.load("run-1")).toEqual(copy(states.at(-1)!));

      // A crash right after a new snapshot, before the log restarted: the old log must not apply.
      const staleLog = await readFile(paths.checkpointDelta, "utf8");
      await store.save("run-1", states[5]!);
      await writeFile(paths.checkpointDelta, staleLog);
      expect(await store.load("run-1")).toEqual(copy(states[5]!));
      await log.close();
    });
  });

  it("after a crash mid-write, a torn last delta is ignored and reported; a broken one stops the replay", async () => {
    await withTempDir(async (dataDir) => {
      const store = createCheckpointStore(dataDir);
      const log = await store.openCheckpointLog("run-1");
      const paths = runPaths(dataDir, "run-1");
      const states = growingRun("run-1", 4);
      for (const state of states.slice(0, 3)) log.record(state);
      const good = await readFile(paths.checkpointDelta, "utf8");
      await appendFile(paths.checkpointDelta, '{"type":"delta","turn":4,"usa');
      const torn = await store.loadForResume("run-1");
      expect(torn.checkpoint.turn).toBe(3);
      expect(torn.problems.join("\n")).toMatch(/torn last line/);

      // A complete line that is not a valid delta: the state stays at the last good delta.
      await writeFile(paths.checkpointDelta, `${good}{"type":"delta","turn":"x"}\n`);
      const broken = await store.loadForResume("run-1");
      expect(broken.checkpoint.turn).toBe(3);
      expect(broken.problems.join("\n")).toMatch(/not a valid delta/);

      // A delta that does not fit (a position past the end) is refused, not applied half-way.
      const misfit = {
        ...(JSON.parse(good.trim().split("\n").at(-1)!) as Record<string, unknown>),
        historyLength: 99,
      };
      await writeFile(paths.checkpointDelta, `${good}${JSON.stringify(misfit)}\n`);
      const refused = await store.loadForResume("run-1");
      expect(refused.checkpoint.history).toHaveLength(7);
      expect(refused.problems.join("\n")).toMatch(/does not fit/);
      await log.close();
    });
  });

  it("refuses a delta log written by a newer version instead of half-reading it", async () => {
    await withTempDir(async (dataDir) => {
      const store = createCheckpointStore(dataDir);
      const log = await store.openCheckpointLog("run-1");
      const paths = runPaths(dataDir, "run-1");
      const states = growingRun("run-1", 2);
      for (const state of states) log.record(state);
      const [header, ...rest] = (await readFile(paths.checkpointDelta, "utf8")).split("\n");
      const newer = {
        ...(JSON.parse(header!) as Record<string, unknown>),
        schema: "agentforge-checkpoint-delta/9",
      };
      await writeFile(paths.checkpointDelta, [JSON.stringify(newer), ...rest].join("\n"));
      await expect(store.load("run-1")).rejects.toMatchObject({ code: "SCHEMA_TOO_NEW" });
      await log.close();
      await expect(log.close()).resolves.toBeUndefined();
      expect(() => log.record(states[0]!)).toThrow(/closed/);
    });
  });

  it("keeps the files private", async () => {
    await withTempDir(async (dataDir) => {
      const store = createCheckpointStore(dataDir);
      const log = await store.openCheckpointLog("run-1");
      for (const state of growingRun("run-1", 2)) log.record(state);
      const paths = runPaths(dataDir, "run-1");
      if (process.platform !== "win32") {
        expect((await stat(paths.checkpoint)).mode & 0o777).toBe(0o600);
        expect((await stat(paths.checkpointDelta)).mode & 0o777).toBe(0o600);
      }
      await log.close();
      expect(join(paths.dir, "checkpoint.json")).toBe(paths.checkpoint);
    });
  });
});
