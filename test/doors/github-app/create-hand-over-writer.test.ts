import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createCheckpointStore } from "../../../src/core/persistence/create-checkpoint-store.js";
import type { RunCheckpoint } from "../../../src/core/persistence/run-checkpoint.js";
import type { JsonValue } from "../../../src/queue/task-queue.js";
import { exportStoredRun } from "../../../src/core/run/hand-over-run.js";
import { readHandOver } from "../../../src/doors/github/jobs/hand-over.js";
import { openJobRecordStore } from "../../../src/doors/github/jobs/job-record-store.js";
import type { DoorLogger } from "../../../src/doors/github/github-logger.js";
import { createHandOverWriter } from "../../../src/doors/github-app/create-hand-over-writer.js";

const git = (cwd: string, ...args: string[]): string =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], {
    cwd,
    encoding: "utf8",
  });

function recordingLogger(): DoorLogger & { warnings: string[] } {
  const warnings: string[] = [];
  const ignore = (): void => undefined;
  return {
    warnings,
    debug: ignore,
    info: ignore,
    warn: (_details: unknown, message?: string) => {
      warnings.push(String(message));
    },
    error: ignore,
  };
}

describe("createHandOverWriter", () => {
  let dir: string;
  let workspace: string;
  let baseSha: string;
  let clock: number;
  let saved: JsonValue[];
  let accept: boolean;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "agentforge-carrier-"));
    workspace = path.join(dir, "workspace");
    execFileSync("git", ["init", "-q", "-b", "main", workspace]);
    await writeFile(path.join(workspace, "sum.js"), "return a - b;\n");
    git(workspace, "add", "-A");
    git(workspace, "commit", "-q", "-m", "base");
    baseSha = git(workspace, "rev-parse", "HEAD").trim();
    clock = 1_000_000;
    saved = [];
    accept = true;
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function setUp(status: RunCheckpoint["status"] = "running") {
    const dataDir = path.join(dir, "data");
    const store = createCheckpointStore(dataDir);
    const record = openJobRecordStore(dataDir, "task-1");
    const log = await store.openCheckpointLog("run-1");
    log.record({
      runId: "run-1",
      task: {
        prompt: "fix",
        workspaceRoot: workspace,
        mode: "build",
        approvalMode: "never",
        allowPrefixes: [],
      },
      turn: 2,
      history: [{ role: "user", content: "fix" }],
      pinnedFacts: {},
      usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2, costUsd: 0 },
      completedToolCalls: {},
      tracePath: record.tracePath,
      status,
      updatedAt: new Date().toISOString(),
    });
    await log.close();
    await store.markToolCallStarted("run-1", "call_1", "shell");
    await store.closeRun("run-1");
    await record.update({
      progressCommentId: 42,
      workspace: {
        workspaceRoot: workspace,
        gitDirectory: path.join(workspace, ".git"),
        baseSha,
        remoteBranchSha: null,
        branch: "agentforge/issue-1",
        tracePath: record.tracePath,
        runId: "run-1",
      },
    });
    const logger = recordingLogger();
    const writer = createHandOverWriter({
      saveHandOver: (value) => {
        saved.push(value);
        return Promise.resolve(accept);
      },
      record,
      runner: { exportRun: (runId) => exportStoredRun(store, runId) },
      logger,
      taskId: "task-1",
      intervalMs: 10_000,
      now: () => clock,
    });
    return { writer, logger };
  }

  it("stores the run's checkpoint, started calls and workspace changes at a turn's start", async () => {
    const { writer } = await setUp();
    await writeFile(path.join(workspace, "sum.js"), "return a + b;\n");
    await writeFile(path.join(workspace, "notes.txt"), "new file\n");
    writer.observe({ type: "turn-start", turn: 3 });
    await writer.settle();
    expect(saved).toHaveLength(1);
    const read = readHandOver(saved[0]);
    if (!read.success) throw new Error(read.error);
    const carried = read.value;
    expect(carried.run.runId).toBe("run-1");
    expect(carried.run.checkpoint.turn).toBe(2);
    expect(carried.run.startedCallIds).toEqual(["call_1"]);
    expect(carried.progressCommentId).toBe(42);
    expect(carried.branch).toBe("agentforge/issue-1");
    expect(carried.changes.baseSha).toBe(baseSha);
    expect(Buffer.from(carried.changes.trackedPatchBase64, "base64").toString("utf8")).toContain(
      "+return a + b;",
    );
    expect(carried.changes.untracked.map((file) => file.path)).toEqual(["notes.txt"]);
  });

  it("captures at most once per interval, and only at a turn's start", async () => {
    const { writer } = await setUp();
    writer.observe({
      type: "model-call-start",
      turn: 1,
      model: "m",
      messageCount: 1,
      promptTokensEstimate: 10,
    });
    writer.observe({ type: "turn-start", turn: 1 });
    await writer.idle();
    expect(saved).toHaveLength(1);
    // A capture starts within observe(): once idle after these turns, none was started for them.
    writer.observe({ type: "turn-start", turn: 2 });
    clock += 9_999;
    writer.observe({ type: "turn-start", turn: 3 });
    await writer.idle();
    expect(saved).toHaveLength(1);
    clock += 10_001;
    writer.observe({ type: "turn-start", turn: 4 });
    await writer.settle();
    expect(saved).toHaveLength(2);
  });

  it("stops storing once the queue says the task is no longer this worker's", async () => {
    const { writer } = await setUp();
    accept = false;
    writer.observe({ type: "turn-start", turn: 1 });
    await writer.idle();
    clock += 60_000;
    writer.observe({ type: "turn-start", turn: 2 });
    await writer.settle();
    expect(saved).toHaveLength(1);
  });

  it("stores nothing for a finished run, and a failed capture is logged, not thrown", async () => {
    const finished = await setUp("finished");
    finished.writer.observe({ type: "turn-start", turn: 1 });
    await finished.writer.settle();
    expect(saved).toHaveLength(0);

    const running = await setUp();
    await rm(workspace, { recursive: true, force: true });
    running.writer.observe({ type: "turn-start", turn: 1 });
    await running.writer.settle();
    expect(saved).toHaveLength(0);
    expect(running.logger.warnings).toEqual(["could not store the run for another worker"]);
  });

  it("only reads the run: a live checkpoint write's temporary file is left alone", async () => {
    const { writer } = await setUp();
    const temporary = path.join(dir, "data", "runs", "run-1", ".checkpoint.json.0123456789ab.tmp");
    await writeFile(temporary, "being written");
    writer.observe({ type: "turn-start", turn: 3 });
    await writer.settle();
    expect(saved).toHaveLength(1);
    expect(existsSync(temporary)).toBe(true);
  });

  it("a turn that starts during a capture is captured when it ends, if the model has not answered yet", async () => {
    const { writer } = await setUp();
    writer.observe({ type: "turn-start", turn: 1 });
    // The next turn starts at once (interval 0 would be due): it must not be lost.
    clock += 20_000;
    writer.observe({ type: "turn-start", turn: 2 });
    await writer.idle();
    expect(saved).toHaveLength(2);

    // Once the model has answered, tools may run: the pending capture waits for the next turn.
    clock += 20_000;
    writer.observe({ type: "turn-start", turn: 3 });
    clock += 20_000;
    writer.observe({ type: "turn-start", turn: 4 });
    writer.observe({
      type: "model-call-end",
      turn: 4,
      model: "m",
      usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 },
      costUsd: 0,
      durationMs: 1,
      finishReason: "tool_calls",
      text: null,
      toolCalls: [],
    } as unknown as Parameters<typeof writer.observe>[0]);
    await writer.idle();
    expect(saved).toHaveLength(3);
    await writer.settle();
  });
});
