import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createTokenCounter,
  defaultReserveOutputTokens,
  validateTranscript,
} from "../../src/core/context/index.js";
import type { ChatMessage, ToolDefinition } from "../../src/core/model/model-types.js";
import { parseMockScript, type MockScript } from "../../src/mock-model/mock-script.js";
import { eventsOfType, readTraceRecords } from "./support/read-run-files.js";
import { runCli } from "./support/run-cli.js";
import { startSplitModelServer, type SplitModelServer } from "./support/start-split-model-server.js";

/**
 * A long task in a small window, through the real CLI: 20 modules are read, searched, fixed and
 * checked, 60+ turns with tool outputs that each take a large share of the window. The run must
 * finish, every request must be a transcript a provider accepts and fit the window, and the
 * harness's pinned facts must still be in the last request.
 */

const WINDOW = 8_000;
const MODULES = 20;
const MODEL = "gpt-4.1-mini";
const GOAL =
  "Replace every TODO(fix) marker in src/ with a real return value, keep `node check.js` passing, and say which modules changed.";

const modulePath = (index: number): string => `src/module-${String(index).padStart(2, "0")}.js`;

/** About 5,500 characters (roughly 1,500 tokens) per file: a few files fill the window. */
function moduleSource(index: number): string {
  const lines = [`// Module ${index}: helpers for the report pipeline.`];
  for (let line = 0; line < 60; line += 1) {
    lines.push(
      `export function step${index}_${line}(input) { return input.map((value) => value * ${line + 1}); }`,
    );
  }
  lines.push(`export function pending${index}() {`, `  return null; // TODO(fix) module ${index}`, "}");
  return `${lines.join("\n")}\n`;
}

function script(steps: unknown[]): MockScript {
  const parsed = parseMockScript({ steps });
  if (!parsed.success) throw new Error(parsed.error);
  return parsed.value;
}

/** Per module: read it, grep the tree, fix it; every fourth module, run the check. */
function agentSteps(): unknown[] {
  const steps: unknown[] = [];
  let id = 0;
  const call = (name: string, args: Record<string, unknown>): unknown => ({
    type: "tool_calls",
    text: `Working on step ${id}.`,
    calls: [{ id: `call_${String(++id).padStart(3, "0")}`, name, arguments: args }],
  });
  for (let index = 0; index < MODULES; index += 1) {
    steps.push(call("read_file", { path: modulePath(index) }));
    steps.push(call("grep", { pattern: "step\\d+_[0-9]+\\(input\\)", path: "src" }));
    steps.push(
      call("edit_file", {
        path: modulePath(index),
        old_string: `  return null; // TODO(fix) module ${index}`,
        new_string: `  return ${index};`,
      }),
    );
    if (index % 4 === 3) steps.push(call("shell", { command: "node check.js" }));
  }
  steps.push({ type: "text", text: `All ${MODULES} modules fixed; node check.js passes.` });
  return steps;
}

const SUMMARY =
  "Goal: replace the TODO(fix) markers in src/.\nProgress: the earlier modules were read and fixed; node check.js ran.\n" +
  "Important files: src/module-*.js.\nRemaining work: the later modules.";

describe("a 60+ turn task in an 8,000-token window", () => {
  let dir: string;
  let repo: string;
  let server: SplitModelServer;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "agentforge-long-"));
    repo = join(dir, "repo");
    mkdirSync(join(repo, "src"), { recursive: true });
    for (let index = 0; index < MODULES; index += 1)
      writeFileSync(join(repo, modulePath(index)), moduleSource(index));
    writeFileSync(
      join(repo, "check.js"),
      'const fs = require("node:fs");\nconst left = fs.readdirSync("src").filter((name) => fs.readFileSync("src/" + name, "utf8").includes("TODO(fix)"));\n' +
        'console.log(left.length + " module(s) still to fix" + (left.length ? ": " + left.join(", ") : ""));\n',
    );
    execFileSync("git", ["init", "-q"], { cwd: repo });
  });

  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("finishes, keeps every request valid and inside the window, and keeps the pinned facts", async () => {
    const steps = agentSteps();
    expect(steps.length).toBeGreaterThan(60);
    server = await startSplitModelServer({
      agent: script(steps),
      summarizer: script([{ type: "text", text: SUMMARY, times: "forever" }]),
    });
    const tracePath = join(dir, "trace.jsonl");
    const outcome = await runCli(
      [
        "run",
        GOAL,
        "--cwd",
        repo,
        "--approval",
        "never",
        "--allow",
        "node check.js",
        "--context-window",
        String(WINDOW),
        "--max-turns",
        "200",
        "--trace",
        tracePath,
        "--json",
      ],
      {
        OPENAI_BASE_URL: server.url,
        OPENAI_API_KEY: "sk-test-long-task-not-a-real-key-000000",
        AGENTFORGE_MODEL: MODEL,
        AGENTFORGE_DATA_DIR: join(dir, "data"),
      },
    );
    expect(outcome.stderr).not.toContain("Error:");
    const result = JSON.parse(outcome.stdout) as {
      exitReason: string;
      turns: number;
      filesChanged: string[];
    };
    expect(result.exitReason).toBe("final_answer");
    expect(result.turns).toBe(steps.length);
    for (let index = 0; index < MODULES; index += 1) {
      expect(readFileSync(join(repo, modulePath(index)), "utf8")).toContain(`  return ${index};`);
    }

    const agentRequests = server.requests.filter((request) => request.route === "agent");
    const summarizerRequests = server.requests.filter((request) => request.route === "summarizer");
    expect(agentRequests).toHaveLength(steps.length);

    // Working memory did its job: old outputs were pruned and older turns compacted.
    const records = readTraceRecords(tracePath);
    const pruned = eventsOfType(records, "context-pruned");
    const compacted = eventsOfType(records, "context-compacted");
    expect(pruned.length).toBeGreaterThan(0);
    expect(compacted.length).toBeGreaterThan(0);
    expect(summarizerRequests.length).toBe(compacted.length);
    // The summarizer is given the harness's facts, and its summary reaches the agent's next request.
    expect(JSON.stringify(summarizerRequests[0]!.body.messages)).toContain(GOAL);

    // Every request the provider would have received is a valid transcript that fits the window.
    const counter = createTokenCounter(MODEL);
    const inputCapacity = WINDOW - defaultReserveOutputTokens(WINDOW);
    const sizes: number[] = [];
    for (const [index, request] of agentRequests.entries()) {
      const messages = request.body.messages as ChatMessage[];
      const validation = validateTranscript(messages);
      if (!validation.success) throw new Error(`request ${index}: ${validation.error}`);
      const tokens =
        counter.countMessages(messages) + counter.countTools((request.body.tools ?? []) as ToolDefinition[]);
      sizes.push(tokens);
    }
    expect(Math.max(...sizes)).toBeLessThanOrEqual(inputCapacity);
    for (const request of summarizerRequests) {
      const tokens = counter.countMessages(request.body.messages as ChatMessage[]);
      expect(tokens).toBeLessThanOrEqual(WINDOW);
    }

    // The pinned facts reach the last request in full: the goal verbatim, files, commands.
    const last = agentRequests.at(-1)!.body.messages as ChatMessage[];
    const ledger = last.find(
      (message) => message.role === "user" && message.content.startsWith("[Pinned facts"),
    );
    expect(ledger).toBeDefined();
    const facts = ledger!.content as string;
    expect(facts).toContain(GOAL);
    const changedLine = facts.split("\n").find((line) => line.startsWith("Files changed"));
    const readLine = facts.split("\n").find((line) => line.startsWith("Files read"));
    for (let index = 0; index < MODULES; index += 1) {
      expect(changedLine).toContain(modulePath(index));
      expect(readLine).toContain(modulePath(index));
    }
    expect(facts).toMatch(/`node check\.js` → exit 0 \(ok\), 5 runs/);
    expect(result.filesChanged).toHaveLength(MODULES);
    expect(JSON.stringify(last)).toContain("Remaining work: the later modules.");
    // The transcript itself was cut: the earliest turns' outputs are no longer in it verbatim.
    expect(JSON.stringify(last)).not.toContain("step0_59(input)");
  }, 120_000);
});
