import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { validateTranscript } from "../../src/core/context/index.js";
import type { ChatMessage } from "../../src/core/model/model-types.js";
import { createCheckpointStore } from "../../src/core/persistence/create-checkpoint-store.js";
import { parseMockScript, type MockScript } from "../../src/mock-model/mock-script.js";
import { startMockModelServer, type MockModelServer } from "../../src/mock-model/start-mock-model-server.js";
import {
  eventsOfType,
  listRunIds,
  readTraceRecords,
  toolEndsById,
  toolStartsById,
} from "./support/read-run-files.js";
import { runCli, startCli, waitFor, type RunningCli } from "./support/run-cli.js";

/**
 * A run is killed with SIGKILL (no handler runs, nothing is flushed on the way out), then
 * `agentforge run --resume ID` continues it against a second scripted model. Every tool side
 * effect is counted in files, so a call that ran twice shows up as an extra line.
 */

const KEY = "sk-test-resume-not-a-real-key-0000000000";

function script(steps: unknown[]): MockScript {
  const parsed = parseMockScript({ steps });
  if (!parsed.success) throw new Error(parsed.error);
  return parsed.value;
}

/** Lines a tool side effect appended to a file in the workspace (none when the file is absent). */
function sideEffects(repo: string, name: string): string[] {
  const path = join(repo, name);
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line !== "");
}

function chatBodies(server: MockModelServer) {
  return server.requests
    .filter((request) => request.path.endsWith("/chat/completions"))
    .map((request) => request.body as unknown as { messages: ChatMessage[] });
}

function toolMessages(messages: readonly ChatMessage[]) {
  return messages.flatMap((message) => (message.role === "tool" ? [message] : []));
}

describe("agentforge run --resume after SIGKILL", () => {
  let dir: string;
  let repo: string;
  let dataDir: string;
  let tracePath: string;
  const servers: MockModelServer[] = [];
  const running: RunningCli[] = [];

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "agentforge-resume-"));
    repo = join(dir, "repo");
    dataDir = join(dir, "data");
    tracePath = join(dir, "trace.jsonl");
    mkdirSync(repo);
    writeFileSync(join(repo, "README.md"), "# demo\nA small project.\n");
    // Each script appends one line per run, so the count of lines is the count of executions.
    writeFileSync(
      join(repo, "count.js"),
      'require("node:fs").appendFileSync("count.log", process.argv[2] + "\\n");\nconsole.log("counted " + process.argv[2]);\n',
    );
    writeFileSync(
      join(repo, "slow.js"),
      'const fs = require("node:fs");\nfs.appendFileSync("slow.log", "started\\n");\n' +
        'setTimeout(() => fs.appendFileSync("slow.log", "finished\\n"), 20000);\n',
    );
    execFileSync("git", ["init", "-q"], { cwd: repo });
  });

  afterEach(async () => {
    for (const cli of running.splice(0)) cli.killHard();
    for (const server of servers.splice(0)) await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const env = (server: MockModelServer): NodeJS.ProcessEnv => ({
    OPENAI_BASE_URL: server.url,
    OPENAI_API_KEY: KEY,
    AGENTFORGE_MODEL: "gpt-4.1-mini",
    AGENTFORGE_DATA_DIR: dataDir,
  });
  const runArguments = [
    "run",
    "tidy the notes",
    "--cwd",
    "REPO",
    "--approval",
    "never",
    "--allow",
    "node count.js",
    "--allow",
    "node slow.js",
    "--trace",
    "TRACE",
    "--json",
  ];
  const firstRunArguments = (): string[] =>
    runArguments.map((argument) =>
      argument === "REPO" ? repo : argument === "TRACE" ? tracePath : argument,
    );

  async function start(steps: unknown[]): Promise<{ server: MockModelServer; cli: RunningCli }> {
    const server = await startMockModelServer({ script: script(steps) });
    servers.push(server);
    const cli = startCli(firstRunArguments(), env(server));
    running.push(cli);
    return { server, cli };
  }

  /** Waits for `check`, failing at once (with the CLI's output) if the run ended on its own. */
  async function waitWhileRunning(cli: RunningCli, check: () => boolean, description: string): Promise<void> {
    await waitFor(() => {
      if (cli.child.exitCode !== null) {
        throw new Error(
          `the run exited (${cli.child.exitCode}) before ${description}: ${cli.output().stderr}`,
        );
      }
      return check();
    }, description);
  }

  async function killAndFindRun(cli: RunningCli): Promise<string> {
    cli.killHard();
    const outcome = await cli.exited;
    expect(outcome.signal).toBe("SIGKILL");
    const runIds = listRunIds(dataDir);
    expect(runIds).toHaveLength(1);
    const runId = runIds[0]!;
    // The header of the killed run's trace names the same run.
    expect(readTraceRecords(tracePath)[0]).toMatchObject({ record: "header", run_id: runId });
    return runId;
  }

  async function resume(runId: string, steps: unknown[]) {
    const server = await startMockModelServer({ script: script(steps) });
    servers.push(server);
    const outcome = await runCli(["run", "--resume", runId, "--json"], env(server));
    return { server, outcome };
  }

  it("reports the tool call that was running as INTERRUPTED, reuses the finished one, runs the unstarted one once", async () => {
    const { cli } = await start([
      {
        type: "tool_calls",
        calls: [
          { id: "call_read", name: "read_file", arguments: { path: "README.md" } },
          { id: "call_before", name: "shell", arguments: { command: "node count.js before" } },
        ],
      },
      {
        type: "tool_calls",
        calls: [
          {
            id: "call_write",
            name: "write_file",
            arguments: { path: "notes.txt", content: "first draft\n" },
          },
          { id: "call_slow", name: "shell", arguments: { command: "node slow.js" } },
          { id: "call_after", name: "shell", arguments: { command: "node count.js after" } },
        ],
      },
    ]);
    await waitWhileRunning(cli, () => sideEffects(repo, "slow.log").length > 0, "slow.js to start");
    const runId = await killAndFindRun(cli);
    // The checkpoint (saved when turn 2's calls arrived) keeps no copy of results its history
    // already answers; what finished after it is only in the journal, started before it ran.
    const runDir = join(dataDir, "runs", runId);
    // The checkpoint is the snapshot plus the deltas appended after it, as resume reads it.
    const checkpoint = await createCheckpointStore(dataDir).load(runId);
    expect(checkpoint).toMatchObject({ turn: 2, completedToolCalls: {} });
    const journal = readFileSync(join(runDir, "journal.jsonl"), "utf8")
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as { type?: string; callId?: string })
      .filter(
        (entry) =>
          entry.callId?.startsWith("call_") &&
          ["call_write", "call_slow", "call_after"].includes(entry.callId),
      )
      .map((entry) => `${entry.type} ${entry.callId}`);
    expect(journal).toEqual([
      "tool-call-started call_write",
      "tool-call-completed call_write",
      "tool-call-started call_slow",
    ]);
    expect(sideEffects(repo, "count.log")).toEqual(["before"]);
    expect(readFileSync(join(repo, "notes.txt"), "utf8")).toBe("first draft\n");
    // A sentinel: if resuming ran write_file again, this content would be overwritten.
    writeFileSync(join(repo, "notes.txt"), "edited after the crash\n");

    const { server, outcome } = await resume(runId, [
      {
        type: "tool_calls",
        calls: [{ id: "call_check", name: "read_file", arguments: { path: "notes.txt" } }],
      },
      { type: "text", text: "The notes are tidy; slow.js was interrupted and needs a rerun." },
    ]);
    expect(outcome.stderr).not.toContain("Error:");
    expect(outcome.code).toBe(0);
    const result = JSON.parse(outcome.stdout) as {
      filesChanged: string[];
      commandsRun: { command: string }[];
    };
    expect(result).toMatchObject({ runId, exitReason: "final_answer", turns: 4 });
    // The write finished after the last checkpoint; its fact must come back from the journal.
    expect(result.filesChanged).toEqual(["notes.txt"]);
    expect(result.commandsRun.map((command) => command.command)).toEqual([
      "node count.js before",
      "node count.js after",
    ]);

    // No tool call ran twice: one line per execution.
    expect(sideEffects(repo, "count.log")).toEqual(["before", "after"]);
    expect(sideEffects(repo, "slow.log")).toEqual(["started"]);
    expect(readFileSync(join(repo, "notes.txt"), "utf8")).toBe("edited after the crash\n");

    // The model saw every call of the killed turn answered, in call order, the running one as INTERRUPTED.
    const bodies = chatBodies(server);
    expect(bodies).toHaveLength(2);
    const first = bodies[0]!.messages;
    expect(validateTranscript(first)).toEqual({ success: true, value: true });
    const answers = toolMessages(first);
    expect(answers.map((message) => message.tool_call_id)).toEqual([
      "call_read",
      "call_before",
      "call_write",
      "call_slow",
      "call_after",
    ]);
    const byId = new Map(answers.map((message) => [message.tool_call_id, message.content]));
    expect(byId.get("call_slow")).toContain("INTERRUPTED");
    expect(byId.get("call_write")).not.toContain("INTERRUPTED");
    expect(byId.get("call_write")).toContain("notes.txt");
    expect(byId.get("call_after")).toContain("counted after");
    expect(toolMessages(bodies[1]!.messages).at(-1)?.content).toContain("edited after the crash");
    expect(JSON.stringify(bodies)).not.toContain(KEY);

    // One trace, one story: one header, one footer, each call started once.
    const records = readTraceRecords(tracePath);
    expect(records.filter((record) => record.record === "header")).toHaveLength(1);
    expect(records.filter((record) => record.record === "footer")).toHaveLength(1);
    expect(records.at(-1)).toMatchObject({ record: "footer", exit_reason: "final_answer", turns: 4 });
    expect(Object.fromEntries(toolStartsById(records))).toEqual({
      call_read: 1,
      call_before: 1,
      call_write: 1,
      call_slow: 1,
      call_after: 1,
      call_check: 1,
    });
    const [resumed] = eventsOfType(records, "run-resumed");
    expect(resumed?.attributes).toMatchObject({
      "resume.reused_results": 1,
      "resume.interrupted_calls": 1,
      "resume.pending_calls": 1,
    });

    const story = await runCli(["trace", tracePath], {});
    expect(story.code).toBe(0);
    expect(story.stdout).toMatch(
      /Turn 1\n[\s\S]*Turn 2\n[\s\S]*Run resumed from its checkpoint \(1 interrupted call\(s\) reported to the model\)[\s\S]*Turn 3\n[\s\S]*Turn 4\n/,
    );
    // Each call of the killed turn has its outcome in the story, the reused and the interrupted ones too.
    expect(story.stdout).toMatch(
      /Run resumed[^\n]*\n\s+→ write_file: ok[^\n]*\n\s+→ shell: cancelled INTERRUPTED[^\n]*\n\s+→ shell: ok — [^\n]*node count.js after\n/,
    );
    expect(story.stdout).toContain("Stopped: final_answer after 4 turn(s)");
    expect(story.stdout).not.toContain("no footer");
  }, 60_000);

  it("killed while waiting for the model: reuses every finished call and runs none again", async () => {
    const { server: firstServer, cli } = await start([
      {
        type: "tool_calls",
        calls: [
          {
            id: "call_write",
            name: "write_file",
            arguments: { path: "notes.txt", content: "first draft\n" },
          },
          { id: "call_count", name: "shell", arguments: { command: "node count.js one" } },
        ],
      },
      { type: "hang" },
    ]);
    await waitWhileRunning(cli, () => chatBodies(firstServer).length === 2, "the second model call");
    const runId = await killAndFindRun(cli);
    expect(sideEffects(repo, "count.log")).toEqual(["one"]);
    writeFileSync(join(repo, "notes.txt"), "edited after the crash\n");

    const { server, outcome } = await resume(runId, [
      { type: "text", text: "Wrote the notes and counted once." },
    ]);
    expect(outcome.code).toBe(0);
    const result = JSON.parse(outcome.stdout) as {
      filesChanged: string[];
      commandsRun: { command: string }[];
    };
    expect(result).toMatchObject({ runId, exitReason: "final_answer", turns: 2 });
    // The pinned facts of the killed turn survive: what it changed and ran is still known.
    expect(result.filesChanged).toEqual(["notes.txt"]);
    expect(result.commandsRun.map((command) => command.command)).toEqual(["node count.js one"]);
    expect(sideEffects(repo, "count.log")).toEqual(["one"]);
    expect(readFileSync(join(repo, "notes.txt"), "utf8")).toBe("edited after the crash\n");

    // The resumed request carries exactly the results the killed run had already sent.
    const [hanging] = chatBodies(firstServer).slice(1);
    const [resumedRequest] = chatBodies(server);
    expect(resumedRequest).toBeDefined();
    expect(validateTranscript(resumedRequest!.messages)).toEqual({ success: true, value: true });
    expect(toolMessages(resumedRequest!.messages)).toEqual(toolMessages(hanging!.messages));
    expect(
      toolMessages(resumedRequest!.messages)
        .map((message) => message.content)
        .join("\n"),
    ).not.toContain("INTERRUPTED");

    const records = readTraceRecords(tracePath);
    expect(records.filter((record) => record.record === "header")).toHaveLength(1);
    expect(records.filter((record) => record.record === "footer")).toHaveLength(1);
    expect(Object.fromEntries(toolStartsById(records))).toEqual({ call_write: 1, call_count: 1 });
    // The killed process had told both outcomes; the resumed one reuses the results from the
    // journal without telling them a second time.
    expect(Object.fromEntries(toolEndsById(records))).toEqual({ call_write: 1, call_count: 1 });
    expect(eventsOfType(records, "run-resumed")[0]?.attributes).toMatchObject({
      "resume.interrupted_calls": 0,
      "resume.pending_calls": 0,
    });
    const story = await runCli(["trace", tracePath], {});
    expect(story.stdout).toMatch(/Turn 1\n[\s\S]*Run resumed from its checkpoint\.\n[\s\S]*Turn 2\n/);
    expect(story.stdout).toContain("Final answer: Wrote the notes and counted once.");
    expect(story.stdout).toContain("Stopped: final_answer after 2 turn(s)");
  }, 60_000);
});
