import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createOpenAIModelClient } from "../../src/core/model/create-openai-model-client.js";
import { ModelError } from "../../src/core/model/model-error.js";
import { checkModel } from "../../src/core/runtime/check-model.js";
import { readTraceFile } from "../../src/core/trace/read-trace.js";
import type { CliIo } from "../../src/doors/cli/cli-io.js";
import { main } from "../../src/doors/cli/main.js";

/**
 * Against a real llama-server: LLAMA_SERVER_URL (serving a tool-capable model, `-c 4096 -n 40`), or
 * a build of ../shared/real-model started here: REAL_MODEL_BUILD, else the first of
 * `real-model-build/` and `shared/real-model/.build` found in a folder above the checkout (the
 * build lives beside checkouts, which may be worktrees at any depth). Without either the suite is
 * skipped and says why.
 */
const BINARY_PATH = "llama.cpp/build/bin/llama-server";
const MODEL_PATH = "models/tools.gguf";

function buildCandidates(): string[] {
  const given = process.env["REAL_MODEL_BUILD"];
  if (given !== undefined && given !== "") return [resolve(given)];
  const candidates: string[] = [];
  for (let folder = resolve(import.meta.dirname, "../.."); ; folder = dirname(folder)) {
    candidates.push(join(folder, "real-model-build"), join(folder, "shared/real-model/.build"));
    if (dirname(folder) === folder) return candidates;
  }
}

const CANDIDATES = buildCandidates();
const BUILD = CANDIDATES.find(
  (folder) => existsSync(join(folder, BINARY_PATH)) && existsSync(join(folder, MODEL_PATH)),
);
const GIVEN_URL = process.env["LLAMA_SERVER_URL"];
const skipReason =
  GIVEN_URL === undefined && BUILD === undefined
    ? `LLAMA_SERVER_URL is not set and no llama-server build (${BINARY_PATH} and ${MODEL_PATH}) in ${CANDIDATES.join(", ")} (bash ../shared/real-model/build.sh, or set REAL_MODEL_BUILD)`
    : null;
if (skipReason !== null) console.log(`test/live/llama-server.test.ts skipped: ${skipReason}`);
const describeLive = skipReason === null ? describe : describe.skip;
const PORT = 18_081;

/** Starts llama-server and resolves once it says it is listening (its own log line, not a guess). */
function startServer(build: string): Promise<ChildProcess> {
  const child = spawn(
    join(build, BINARY_PATH),
    [
      "-m",
      join(build, MODEL_PATH),
      "--host",
      "127.0.0.1",
      "--port",
      String(PORT),
      "-t",
      "1",
      "--jinja",
      "-c",
      "4096",
      "-n",
      "40",
    ],
    { cwd: build, env: { PATH: process.env.PATH }, stdio: ["ignore", "pipe", "pipe"] },
  );
  return new Promise((resolvePromise, reject) => {
    let log = "";
    const onData = (chunk: Buffer): void => {
      log += chunk.toString();
      if (log.includes("listening on http")) resolvePromise(child);
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`llama-server exited (${code}): ${log.slice(-2000)}`)));
  });
}

describeLive("a real llama-server", () => {
  let child: ChildProcess | undefined;
  let root: string;
  let dir: string;
  let model: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "agentforge-live-"));
    if (GIVEN_URL === undefined && BUILD !== undefined) child = await startServer(BUILD);
    root = (GIVEN_URL ?? `http://127.0.0.1:${PORT}`).replace(/\/v1\/?$/, "").replace(/\/$/, "");
    const models = (await (await fetch(`${root}/v1/models`)).json()) as { data: { id: string }[] };
    model = models.data[0]?.id ?? "";
  }, 120_000);
  afterAll(async () => {
    if (child !== undefined && child.exitCode === null) {
      const exited = new Promise((resolveExit) => child?.once("exit", resolveExit));
      child.kill("SIGTERM");
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  const client = () =>
    createOpenAIModelClient({ model, baseURL: `${root}/v1`, apiKey: "sk-local", retry: { maxAttempts: 1 } });

  it("lists its model and reports its context size", async () => {
    expect(model).not.toBe("");
    const props = (await (await fetch(`${root}/props`)).json()) as {
      default_generation_settings?: { n_ctx?: number };
    };
    expect(props.default_generation_settings?.n_ctx).toBeGreaterThan(0);
  });

  it("doctor reports the served model, the context size from /props, tool support and an unknown price", async () => {
    const check = await checkModel({ OPENAI_BASE_URL: `${root}/v1`, OPENAI_API_KEY: "sk-local" });
    expect(check.status).toBe("ok");
    expect(check.model).toMatchObject({
      model,
      modelSource: "served",
      servedModels: [model],
      contextWindowSource: "props",
      supportsTools: true,
      price: null,
    });
    if (GIVEN_URL === undefined) expect(check.model?.contextWindow).toBe(4096);
    expect(check.detail).toContain("tools: supported (server /props chat_template_caps)");
  });

  it("streams an answer the client parses, with the server's own token counts", async () => {
    const response = await client().complete(
      {
        messages: [{ role: "user", content: "Read src/index.ts." }],
        tools: [
          {
            type: "function",
            function: {
              name: "read_file",
              description: "Reads a file.",
              parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
            },
          },
        ],
        stream: true,
      },
      {},
    );
    expect(["stop", "tool_calls", "length"]).toContain(response.finishReason);
    expect(response.usage.promptTokens).toBeGreaterThan(0);
    for (const call of response.message.tool_calls ?? []) {
      if (response.finishReason === "tool_calls")
        expect(() => JSON.parse(call.function.arguments)).not.toThrow();
    }
  }, 120_000);

  it("refuses a prompt larger than its context with a 400 that names the sizes", async () => {
    const failure = await client()
      .complete({ messages: [{ role: "user", content: "word ".repeat(6000) }], tools: [], stream: true })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ModelError);
    expect(failure).toMatchObject({ status: 400 });
    expect((failure as ModelError).message).toContain("context size");
  }, 120_000);

  it("runs agentforge against it and records the cost as unknown, not $0", async () => {
    const repo = join(dir, "repo");
    mkdirSync(repo);
    let err = "";
    const io: CliIo = {
      stdout: () => undefined,
      stderr: (text) => void (err += text),
      isTty: false,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        OPENAI_BASE_URL: `${root}/v1`,
        OPENAI_API_KEY: "sk-local",
        AGENTFORGE_MODEL: model,
        AGENTFORGE_DATA_DIR: join(dir, "data"),
      },
      readStdin: async () => "",
    };
    const trace = join(dir, "trace.jsonl");
    const code = await main(
      ["run", "say hello", "--cwd", repo, "--approval", "never", "--max-turns", "2", "--trace", trace],
      io,
    );
    expect([0, 1, 69]).toContain(code);
    const parsed = await readTraceFile(trace);
    if (!parsed.success) throw new Error(parsed.error);
    expect(parsed.value.header.model).toBe(model);
    if ((parsed.value.footer?.usage.total_tokens ?? 0) > 0) expect(parsed.value.footer?.cost_usd).toBeNull();
    expect(err).not.toMatch(/\$0\.0000/);
  }, 300_000);
});
