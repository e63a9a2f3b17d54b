import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { createPinnedFacts } from "../../../src/core/context/create-pinned-facts.js";
import { createCheckpointStore } from "../../../src/core/persistence/create-checkpoint-store.js";
import { createRuntime, type Runtime } from "../../../src/core/runtime/create-runtime.js";
import type { MockStep } from "../../../src/mock-model/mock-script.js";
import {
  startMockModelServer,
  type MockModelServer,
} from "../../../src/mock-model/start-mock-model-server.js";

let directory: string;
let workspace: string;
let server: MockModelServer | undefined;
let runtime: Runtime | undefined;

beforeEach(async () => {
  directory = await realpath(await mkdtemp(path.join(os.tmpdir(), "agentforge-model-choice-")));
  workspace = path.join(directory, "workspace");
  await mkdir(workspace);
  await writeFile(path.join(workspace, "a.txt"), "alpha\n");
});
afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
  await server?.close();
  server = undefined;
  await rm(directory, { recursive: true, force: true });
});

/** The runtime every door builds, against a real local model server that records each request's model. */
async function startRuntime(steps: MockStep[], config: Record<string, unknown>): Promise<Runtime> {
  server = await startMockModelServer({ script: { steps } });
  const configPath = path.join(directory, "operator.yml");
  await writeFile(configPath, JSON.stringify(config), "utf8");
  runtime = await createRuntime({
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: directory,
      AGENTFORGE_CONFIG: configPath,
      AGENTFORGE_DATA_DIR: path.join(directory, "data"),
      AGENTFORGE_SANDBOX: "none",
      OPENAI_BASE_URL: server.url,
      OPENAI_API_KEY: "sk-model-choice-not-a-real-key-0000",
      AGENTFORGE_MODEL: "primary-model",
    },
    stream: false,
  });
  return runtime;
}

const task = (extra: Record<string, unknown> = {}) => ({
  prompt: "read a.txt",
  workspaceRoot: workspace,
  mode: "build" as const,
  approvalMode: "never" as const,
  allowPrefixes: [],
  ...extra,
});

const chatModels = (): (string | undefined)[] =>
  (server?.requests ?? []).filter((request) => request.body !== undefined).map((request) => request.model);

describe("a run that asks for another model", () => {
  it("sends every request for it, records it in the trace header and the checkpoint, and a resume keeps it", async () => {
    const { runner, dataDir } = await startRuntime(
      [
        { type: "tool_calls", calls: [{ name: "read_file", arguments: { path: "a.txt" } }] },
        { type: "text", text: "a.txt says alpha" },
      ],
      { allowed_models: ["other-model"] },
    );
    const first = await runner.run(task({ model: "other-model", maxTurns: 1 }));
    expect(first.exitReason).toBe("max_turns");
    expect(first.model).toBe("other-model");
    const checkpoint = JSON.parse(
      await readFile(path.join(dataDir, "runs", first.runId, "checkpoint.json"), "utf8"),
    ) as { task: { model?: string } };
    expect(checkpoint.task.model).toBe("other-model");
    const header = JSON.parse((await readFile(first.tracePath!, "utf8")).split("\n")[0]!) as Record<
      string,
      unknown
    >;
    expect(JSON.stringify(header)).toContain('"model":"other-model"');

    const resumed = await runner.resume(first.runId, { maxTurns: 3 });
    expect(resumed.exitReason).toBe("final_answer");
    expect(resumed.model).toBe("other-model");
    expect(chatModels()).toEqual(["other-model", "other-model"]);
  });

  it("uses the runner's own model without a choice, and for a checkpoint written before choices existed", async () => {
    const { runner, dataDir } = await startRuntime(
      [
        { type: "text", text: "fresh" },
        { type: "text", text: "resumed" },
      ],
      { allowed_models: ["other-model"] },
    );
    const fresh = await runner.run(task());
    expect(fresh.model).toBe("primary-model");
    // A checkpoint of an older version: its task has no `model`.
    const runId = "run-before-model-choice";
    const store = createCheckpointStore(dataDir);
    await store.save(runId, {
      runId,
      task: task(),
      turn: 0,
      history: [{ role: "user", content: "read a.txt" }],
      pinnedFacts: createPinnedFacts("read a.txt").toJSON(),
      usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0, costUsd: 0 },
      completedToolCalls: {},
      tracePath: path.join(directory, "old-trace.jsonl"),
      status: "running",
      updatedAt: new Date().toISOString(),
    });
    await store.closeRun(runId);
    const resumed = await runner.resume(runId);
    expect(resumed.finalAnswer).toBe("resumed");
    expect(chatModels()).toEqual(["primary-model", "primary-model"]);
  });

  it("refuses a model the operator did not allow before anything is sent", async () => {
    const { runner, allowedModels } = await startRuntime([{ type: "text", text: "never" }], {
      fallback_models: ["backup-model"],
      allowed_models: ["other-model"],
    });
    expect(allowedModels).toEqual(["primary-model", "backup-model", "other-model"]);
    await expect(runner.run(task({ model: "gpt-unlisted-1" }))).rejects.toMatchObject({
      code: "MODEL_NOT_ALLOWED",
      allowedModels: ["primary-model", "backup-model", "other-model"],
    });
    expect(chatModels()).toEqual([]);
  });
});
