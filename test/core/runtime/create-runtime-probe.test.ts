import { afterEach, describe, expect, it } from "@jest/globals";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRuntime } from "../../../src/core/runtime/index.js";
import type { Runtime } from "../../../src/core/runtime/create-runtime.js";
import type { MockModelServer } from "../../../src/mock-model/start-mock-model-server.js";
import { startMockModelServer } from "../../../src/mock-model/start-mock-model-server.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp(config?: object): Promise<{ server: MockModelServer; runtime: Runtime; log: string[] }> {
  const server = await startMockModelServer({
    script: { steps: [{ type: "text", text: "ok" }] },
    profile: { contextWindow: 4096, supportsTools: false },
  });
  cleanups.push(() => server.close());
  const dir = await mkdtemp(join(tmpdir(), "agentforge-runtime-"));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  let configPath: string | undefined;
  if (config !== undefined) {
    configPath = join(dir, "config.json");
    await writeFile(configPath, JSON.stringify(config));
  }
  const log: string[] = [];
  const runtime = await createRuntime({
    env: { OPENAI_BASE_URL: server.url, AGENTFORGE_SANDBOX: "none", AGENTFORGE_DATA_DIR: join(dir, "data") },
    ...(configPath === undefined ? {} : { configPath }),
    log: (message) => log.push(message),
  });
  cleanups.push(() => runtime.close());
  return { server, runtime, log };
}

describe("a runtime for a local inference server", () => {
  it("uses the served model when none is named, and the server's context size and tool support", async () => {
    const { runtime, server, log } = await setUp();
    expect(runtime.model.model).toBe("mock-model");
    expect(runtime.model.capabilities).toEqual({ contextWindow: 4096, supportsTools: false });
    expect(log.join("\n")).toContain("using mock-model");
    await runtime.model.complete({ messages: [{ role: "user", content: "hi" }], tools: [] });
    const chat = server.requests.filter((request) => request.body !== undefined);
    // The default cap leaves most of a small window for the prompt.
    expect(chat[0]?.body).toMatchObject({ model: "mock-model", max_tokens: 512 });
  });

  it("sends the operator's max_output_tokens and temperature, and keeps a named model", async () => {
    const { runtime, server } = await setUp({ model: "my-model", max_output_tokens: 200, temperature: 0.1 });
    expect(runtime.model.model).toBe("my-model");
    await runtime.model.complete({ messages: [{ role: "user", content: "hi" }], tools: [] });
    const chat = server.requests.filter((request) => request.body !== undefined);
    expect(chat[0]?.body).toMatchObject({ model: "my-model", max_tokens: 200, temperature: 0.1 });
  });
});
