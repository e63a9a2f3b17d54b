import { runLimits } from "../../../src/core/config/run-limits.js";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { createAgentRunner } from "../../../src/core/create-agent-runner.js";
import type { ModelClient } from "../../../src/core/model/model-types.js";
import { createScriptedModel } from "../../support/scripted-model.js";

let root: string;
let workspace: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), "agentforge-workspace-ready-"));
  workspace = path.join(root, "workspace");
  await mkdir(workspace);
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const settings = { limits: runLimits({ maxTurns: 10 }), contextWindow: 128_000, configDigest: "test" };
const task = {
  prompt: "write b.txt",
  workspaceRoot: "",
  mode: "build" as const,
  approvalMode: "never" as const,
  allowPrefixes: [],
};

/** The scripted model, also calling `onAsked` when the run first asks it. */
function modelTelling(onAsked: () => void): ModelClient {
  const scripted = createScriptedModel([
    { calls: [{ name: "write_file", args: { path: "b.txt", content: "beta\n" } }] },
    { text: "done" },
  ]);
  return {
    ...scripted,
    complete: (request, options) => {
      onAsked();
      return scripted.complete(request, options);
    },
  };
}

describe("a run given a workspace that is not ready yet", () => {
  it("asks the model before the workspace is ready, and runs the tools once it is", async () => {
    let markReady: () => void = () => undefined;
    const workspaceReady = new Promise<void>((resolve) => (markReady = resolve));
    // The workspace becomes ready only once the model has been asked: a run waiting for the
    // workspace before its first request would never end.
    const runner = createAgentRunner({
      model: modelTelling(() => markReady()),
      dataDir: path.join(root, "data"),
      settings,
    });
    const result = await runner.run({ ...task, workspaceRoot: workspace }, { workspaceReady });
    expect(result.exitReason).toBe("final_answer");
    expect(await readFile(path.join(workspace, "b.txt"), "utf8")).toBe("beta\n");
  });

  it("runs no tool when the workspace could not be made ready, and ends as an error", async () => {
    const workspaceReady = Promise.reject(new Error("the index could not be written"));
    // The run observes it; until it does, the rejection must not count as unhandled.
    workspaceReady.catch(() => undefined);
    const runner = createAgentRunner({
      model: modelTelling(() => undefined),
      dataDir: path.join(root, "data"),
      settings,
    });
    const result = await runner.run({ ...task, workspaceRoot: workspace }, { workspaceReady });
    expect(result.exitReason).toBe("error");
    await expect(readFile(path.join(workspace, "b.txt"), "utf8")).rejects.toMatchObject({ code: "ENOENT" });
  });
});
