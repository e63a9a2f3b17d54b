import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseMockScript } from "../../../src/mock-model/mock-script.js";
import {
  startMockModelServer,
  type MockModelServer,
} from "../../../src/mock-model/start-mock-model-server.js";
import { runCli } from "../support/run-cli.js";
import { writingCalls } from "./attack-scripts.js";
import { diffSnapshots, listMarkers, mountOptions, snapshotFolder } from "./host-evidence.js";
import { createHostileCheckout, fixtureGit, TEST_COMMAND } from "./hostile-project.js";
import { describeSpellings, ranInSandbox, readTracedCalls, BARE_REFUSAL } from "./traced-calls.js";

/*
 * Read-only sessions from the terminal over the hostile project: `agentforge run --mode plan` and
 * the reviewer subagents of `agentforge review`, each with a scripted model that runs commands
 * which would write (approved under `never` or not), the allow-listed test command, git inside
 * the bare-repository look-alike and the file tools. The checkout (its `.git` folder included)
 * must be byte for byte as before, and nothing may run on the host.
 */

function script(steps: unknown[]) {
  const parsed = parseMockScript({ steps });
  if (!parsed.success) throw new Error(parsed.error);
  return parsed.value;
}

describe("read-only sessions of the CLI over a hostile checkout", () => {
  let root: string;
  let markers: string;
  let server: MockModelServer | undefined;
  const timings: Record<string, number> = {};
  const notes: string[] = [];

  beforeAll(() => {
    root = mkdtempSync(path.join(tmpdir(), "hostile-cli-"));
    markers = mkdtempSync(path.join(tmpdir(), "hostile-markers-"));
  });

  afterAll(async () => {
    await server?.close();
    rmSync(root, { recursive: true, force: true });
    rmSync(markers, { recursive: true, force: true });
    process.stdout.write(`hostile-repository CLI timings (ms): ${JSON.stringify(timings)}\n`);
    if (notes.length > 0)
      process.stdout.write(`writing spellings under never (policy notes):\n${notes.join("\n")}\n`);
  });

  it("class 5: `agentforge run --mode plan` changes nothing in the checkout, whatever its commands try", async () => {
    const checkout = createHostileCheckout(root, { markers });
    const before = snapshotFolder(checkout);
    await server?.close();
    server = await startMockModelServer({
      script: script([
        { type: "tool_calls", calls: writingCalls("call_write") },
        {
          type: "tool_calls",
          calls: [
            { id: "call_mounts", name: "shell", arguments: { command: "cat /proc/self/mountinfo" } },
            { id: "call_tests", name: "shell", arguments: { command: TEST_COMMAND } },
            { id: "call_bare", name: "shell", arguments: { command: "cd fake-bare && git status" } },
            { id: "call_status", name: "shell", arguments: { command: "git status --short" } },
            {
              id: "call_file",
              name: "write_file",
              arguments: { path: "evidence/pwned-write-file", content: "x" },
            },
            {
              id: "call_edit",
              name: "edit_file",
              arguments: { path: "README.md", old_string: "# demo", new_string: "# pwned" },
            },
          ],
        },
        { type: "text", text: "Plan: nothing to change." },
      ]),
    });
    const trace = path.join(root, "plan-trace.jsonl");
    const startedAt = Date.now();
    const outcome = await runCli(
      [
        "run",
        "Plan how to reorganise the tests.",
        "--mode",
        "plan",
        "--approval",
        "never",
        "--allow",
        TEST_COMMAND,
        "--cwd",
        checkout,
        "--trace",
        trace,
      ],
      {
        OPENAI_BASE_URL: server.url,
        OPENAI_API_KEY: "sk-hostile-cli-not-a-key",
        AGENTFORGE_DATA_DIR: path.join(root, "data-plan"),
      },
    );
    timings["plan"] = Date.now() - startedAt;
    expect({ code: outcome.code, stderr: outcome.code === 0 ? "" : outcome.stderr }).toEqual({
      code: 0,
      stderr: "",
    });
    expect(diffSnapshots(before, snapshotFolder(checkout))).toEqual({ added: [], removed: [], changed: [] });
    expect(listMarkers(markers)).toEqual([]);

    const calls = readTracedCalls(readFileSync(trace, "utf8"));
    const mountinfo = calls.get("call_mounts")?.output ?? "";
    expect(ranInSandbox(calls.get("call_mounts"))).toBe(true);
    expect(mountOptions(mountinfo, checkout)?.[0]).toBe("ro");
    expect(mountOptions(mountinfo, path.join(checkout, ".git"))?.[0]).toBe("ro");
    expect(calls.get("call_bare")?.output).toMatch(BARE_REFUSAL);
    expect(calls.get("call_bare")?.output).not.toContain("PLANTED-RAN");
    expect(calls.get("call_status")?.output).not.toContain("PLANTED-RAN");
    expect(calls.get("call_file")?.status).toBe("refused");
    expect(calls.get("call_edit")?.status).toBe("refused");
    // Plan mode offers the read-only allowlist only: the repository's test command is refused there.
    expect(calls.get("call_tests")?.errorType).toBe("COMMAND_BLOCKED");
    const spellings = describeSpellings(calls, "call_write");
    notes.push(...spellings.map((note) => `- agentforge run --mode plan: ${note}`));
    if (spellings.some((note) => note.includes("ran")))
      expect(spellings.some((note) => note.includes("kernel refused"))).toBe(true);
  }, 60_000);

  it("class 5: `agentforge review`'s reviewer subagents change nothing in the checkout", async () => {
    const checkout = createHostileCheckout(root, { markers });
    writeFileSync(path.join(checkout, "sample.planted"), "a change to review\n");
    fixtureGit(checkout, ["commit", "-q", "-am", "A change to review"]);
    const before = snapshotFolder(checkout);
    await server?.close();
    // Three reviewers side by side: each takes one step of the first kind, then answers.
    server = await startMockModelServer({
      script: script([
        {
          type: "tool_calls",
          times: 3,
          calls: [
            ...writingCalls("call_write"),
            { id: "call_mounts", name: "shell", arguments: { command: "cat /proc/self/mountinfo" } },
            { id: "call_bare", name: "shell", arguments: { command: "cd fake-bare && git status" } },
            {
              id: "call_file",
              name: "write_file",
              arguments: { path: "evidence/pwned-write-file", content: "x" },
            },
          ],
        },
        { type: "text", times: 3, text: "[]" },
      ]),
    });
    const startedAt = Date.now();
    const outcome = await runCli(["review", "--cwd", checkout, "--base", "HEAD~1", "--json"], {
      OPENAI_BASE_URL: server.url,
      OPENAI_API_KEY: "sk-hostile-cli-not-a-key",
      AGENTFORGE_DATA_DIR: path.join(root, "data-review"),
    });
    timings["review"] = Date.now() - startedAt;
    expect({ code: outcome.code, stderr: outcome.code === 0 ? "" : outcome.stderr }).toEqual({
      code: 0,
      stderr: "",
    });
    expect(JSON.parse(outcome.stdout)).toMatchObject({ findings: [] });
    expect(diffSnapshots(before, snapshotFolder(checkout))).toEqual({ added: [], removed: [], changed: [] });
    expect(listMarkers(markers)).toEqual([]);

    // What each reviewer got back: the commands ran, in a sandbox with the checkout read-only.
    const chat = server.requests.filter((request) => request.body !== undefined);
    expect(chat).toHaveLength(6);
    const toolResults = chat.flatMap((request) =>
      (request.body?.messages ?? [])
        .filter((message) => message.role === "tool")
        .map((message) =>
          typeof message.content === "string" ? message.content : JSON.stringify(message.content),
        ),
    );
    const mountResults = toolResults.filter((content) => content.includes("/proc"));
    expect(mountResults).toHaveLength(3);
    for (const content of mountResults) expect(mountOptions(content, checkout)?.[0]).toBe("ro");
    expect(toolResults.filter((content) => BARE_REFUSAL.test(content))).toHaveLength(3);
    expect(toolResults.join("\n")).not.toContain("PLANTED-RAN");
  }, 60_000);
});
