import { runLimits } from "../../../src/core/config/run-limits.js";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import type { RunInput } from "../../../src/core/agent-run.js";
import { createAgentRunner } from "../../../src/core/create-agent-runner.js";
import type {
  ModelCallOptions,
  ModelClient,
  ModelRequest,
  ModelResponse,
} from "../../../src/core/model/model-types.js";
import { runHandOverSchema } from "../../../src/core/run/run-hand-over.js";
import { createScriptedModel } from "../../support/scripted-model.js";

let root: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), "agentforge-hand-over-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const settings = { limits: runLimits({ maxTurns: 10 }), contextWindow: 128_000, configDigest: "test" };

async function workspaceAt(name: string): Promise<string> {
  const workspace = path.join(root, name);
  await mkdir(workspace);
  await writeFile(path.join(workspace, "a.txt"), "alpha\n");
  return workspace;
}

function taskIn(workspaceRoot: string): RunInput {
  return { prompt: "copy a to b", workspaceRoot, mode: "build", approvalMode: "never", allowPrefixes: [] };
}

/** A model whose second answer waits until the test lets it go: the run is in flight meanwhile. */
function modelHeldAtSecondCall(): ModelClient & {
  readonly asked: Promise<void>;
  release(error: Error): void;
} {
  let markAsked: () => void = () => undefined;
  const asked = new Promise<void>((resolve) => (markAsked = resolve));
  let fail: (error: Error) => void = () => undefined;
  const held = new Promise<never>((_resolve, reject) => (fail = reject));
  let calls = 0;
  return {
    model: "held",
    asked,
    release: (error) => fail(error),
    complete(_request: ModelRequest, options?: ModelCallOptions): Promise<ModelResponse> {
      calls += 1;
      if (calls === 1)
        return Promise.resolve({
          message: {
            role: "assistant",
            content: null,
            tool_calls: [
              {
                id: "call_write",
                type: "function",
                function: {
                  name: "write_file",
                  arguments: JSON.stringify({ path: "b.txt", content: "beta\n" }),
                },
              },
            ],
          },
          finishReason: "tool_calls",
          usage: { promptTokens: 100, completionTokens: 10, totalTokens: 110 },
          model: "held",
          costUsd: 0,
          attempts: 1,
        });
      markAsked();
      options?.signal?.addEventListener("abort", () => fail(new Error("aborted")));
      return held;
    },
  };
}

describe("a run the core owns", () => {
  it("takes the run id the caller gives, and names it in the trace; an unusable id is refused", async () => {
    const workspace = await workspaceAt("w");
    const runner = createAgentRunner({
      model: createScriptedModel([{ text: "done" }]),
      dataDir: path.join(root, "data"),
      settings,
    });
    const result = await runner.run(taskIn(workspace), { runId: "job-42-run" });
    expect(result.runId).toBe("job-42-run");
    const header = JSON.parse((await readFile(result.tracePath!, "utf8")).split("\n")[0]!) as Record<
      string,
      unknown
    >;
    expect(header["run_id"]).toBe("job-42-run");
    await expect(runner.run(taskIn(workspace), { runId: "../escape" })).rejects.toMatchObject({
      code: "INVALID_ID",
    });
  });

  it("says where a stored run stands without changing it", async () => {
    const dataDir = path.join(root, "data");
    const runner = createAgentRunner({ model: createScriptedModel([{ text: "done" }]), dataDir, settings });
    expect(await runner.inspect("never-ran")).toEqual({ kind: "none" });
    const workspace = await workspaceAt("w");
    await runner.run(taskIn(workspace), { runId: "finished-run" });
    expect(await runner.inspect("finished-run")).toMatchObject({
      kind: "stored",
      status: "finished",
      workspaceRoot: workspace,
    });
    await writeFile(path.join(dataDir, "runs", "finished-run", "checkpoint.json"), "{ cut by a crash");
    expect(await runner.inspect("finished-run")).toMatchObject({ kind: "unreadable" });
  });

  it("exports a run in flight and continues it on another machine without repeating a finished call", async () => {
    const first = await workspaceAt("first");
    const held = modelHeldAtSecondCall();
    const here = createAgentRunner({ model: held, dataDir: path.join(root, "here"), settings });
    const controller = new AbortController();
    const running = here.run({ ...taskIn(first), signal: controller.signal }, { runId: "moving-run" });
    await held.asked;

    const handOver = await here.exportRun("moving-run");
    expect(handOver).not.toBeNull();
    // A plain JSON value that survives the trip through a queue.
    const travelled = runHandOverSchema.parse(JSON.parse(JSON.stringify(handOver)));
    expect(travelled.checkpoint.completedToolCalls["call_write"]).toBeDefined();

    // The other machine: its own data folder, its own workspace rebuilt with the run's changes.
    const second = await workspaceAt("second");
    await writeFile(path.join(second, "b.txt"), "beta\n");
    const model = createScriptedModel([{ text: "copied" }]);
    const there = createAgentRunner({ model, dataDir: path.join(root, "there"), settings });
    await there.importRun(travelled, {
      workspaceRoot: second,
      tracePath: path.join(root, "there.trace.jsonl"),
      approvalMode: "never",
    });
    expect(await there.inspect("moving-run")).toMatchObject({ kind: "stored", workspaceRoot: second });
    const result = await there.resume("moving-run");
    expect(result).toMatchObject({ runId: "moving-run", exitReason: "final_answer", finalAnswer: "copied" });
    // The write was not run again: its result came with the run, and it is what the model saw.
    expect(model.requests).toHaveLength(1);
    expect(JSON.stringify(model.requests[0]!.messages)).toContain("b.txt");
    expect(existsSync(path.join(root, "there.trace.jsonl"))).toBe(true);

    controller.abort();
    held.release(new Error("stopped"));
    await running;
    // Once it ended there is nothing left to hand over.
    expect(await here.exportRun("moving-run")).toBeNull();
  });

  it("keeps the importer's approval mode, whatever the handed-over run says", async () => {
    const first = await workspaceAt("first");
    const held = modelHeldAtSecondCall();
    const here = createAgentRunner({ model: held, dataDir: path.join(root, "here"), settings });
    const controller = new AbortController();
    const running = here.run(
      { ...taskIn(first), approvalMode: "yolo", signal: controller.signal },
      { runId: "loose-run" },
    );
    await held.asked;
    const handOver = (await here.exportRun("loose-run"))!;
    const there = createAgentRunner({
      model: createScriptedModel([{ text: "ok" }]),
      dataDir: path.join(root, "there"),
      settings,
    });
    await there.importRun(handOver, { workspaceRoot: first, tracePath: null, approvalMode: "never" });
    const stored = JSON.parse(
      await readFile(path.join(root, "there", "runs", "loose-run", "checkpoint.json"), "utf8"),
    ) as { checkpoint?: { task?: { approvalMode?: string } }; task?: { approvalMode?: string } };
    expect(stored.checkpoint?.task?.approvalMode ?? stored.task?.approvalMode).toBe("never");
    controller.abort();
    held.release(new Error("stopped"));
    await running;
  });
});
