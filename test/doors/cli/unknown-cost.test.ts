import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../../../src/doors/cli/main.js";
import type { CliIo } from "../../../src/doors/cli/cli-io.js";
import { readTraceFile } from "../../../src/core/trace/read-trace.js";
import {
  startMockModelServer,
  type MockModelServer,
} from "../../../src/mock-model/start-mock-model-server.js";

function bufferIo(env: NodeJS.ProcessEnv): CliIo & { out: () => string; err: () => string } {
  let out = "";
  let err = "";
  return {
    stdout: (text) => void (out += text),
    stderr: (text) => void (err += text),
    isTty: false,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    readStdin: async () => "",
    out: () => out,
    err: () => err,
  };
}

/**
 * A local OpenAI-compatible server that serves a model under an OpenAI name is not billed OpenAI's
 * price: without an operator price the cost is unknown, and every place a person reads it says so.
 */
describe("a model without a known price", () => {
  let dir: string;
  let repo: string;
  let server: MockModelServer;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "agentforge-cost-"));
    repo = join(dir, "repo");
    mkdirSync(repo);
    execFileSync("git", ["init", "-q"], { cwd: repo });
    server = await startMockModelServer({
      script: {
        steps: [
          {
            type: "text",
            text: "hello",
            times: "forever",
            usage: { prompt_tokens: 1_000_000, completion_tokens: 1_000_000 },
          },
        ],
      },
    });
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function runOnce(name: string, config: string): Promise<ReturnType<typeof bufferIo>> {
    writeFileSync(join(dir, `${name}.yml`), config);
    server.requests.length = 0;
    const io = bufferIo({
      OPENAI_BASE_URL: server.url,
      OPENAI_API_KEY: "sk-local",
      // An OpenAI model's name on an endpoint that is not OpenAI's: its list price must not apply.
      AGENTFORGE_MODEL: "gpt-4.1-mini",
      AGENTFORGE_DATA_DIR: join(dir, `data-${name}`),
      AGENTFORGE_CONFIG: join(dir, `${name}.yml`),
    });
    const trace = join(dir, `${name}.jsonl`);
    expect(await main(["run", "say hello", "--cwd", repo, "--trace", trace, "--approval", "never"], io)).toBe(
      0,
    );
    return io;
  }

  it("is shown as unknown in the summary line, the trace, its story and the HTML report, never as $0", async () => {
    const io = await runOnce("unpriced", "{}\n");
    expect(server.requests.at(-1)?.model).toBe("gpt-4.1-mini");
    expect(io.err()).toContain("finished: final_answer · 2000000 tokens · cost unknown");
    expect(io.err()).not.toMatch(/\$0\.0000/);

    const parsed = await readTraceFile(join(dir, "unpriced.jsonl"));
    if (!parsed.success) throw new Error(parsed.error);
    expect(parsed.value.footer?.cost_usd).toBeNull();
    const callEnd = parsed.value.events.find((event) => event.event_type === "model-call-end");
    expect(callEnd?.attributes["model.cost_usd"]).toBeNull();

    const story = bufferIo({});
    const html = join(dir, "unpriced.html");
    expect(await main(["trace", join(dir, "unpriced.jsonl"), "--html", html], story)).toBe(0);
    expect(story.out()).toContain("cost unknown.");
    const report = readFileSync(html, "utf8");
    expect(report).toContain("cost unknown");
    expect(report).not.toContain("$0.0000");
  });

  it("uses the operator's price for that model, on any endpoint", async () => {
    const io = await runOnce(
      "priced",
      "prices:\n  gpt-4.1-mini:\n    input_per_million: 1\n    output_per_million: 2\n",
    );
    expect(io.err()).toContain("finished: final_answer · 2000000 tokens · $3.0000");
    const parsed = await readTraceFile(join(dir, "priced.jsonl"));
    if (!parsed.success) throw new Error(parsed.error);
    expect(parsed.value.footer?.cost_usd).toBe(3);
  });
});
