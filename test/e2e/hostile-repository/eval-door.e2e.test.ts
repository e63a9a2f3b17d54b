import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { runCli, waitFor, type CliOutcome } from "../support/run-cli.js";
import {
  attemptsNotRefused,
  ATTRIBUTES_ATTACK,
  BARE_LOOKALIKE_ATTACK,
  GIT_METADATA_ATTACK,
  writingCalls,
} from "./attack-scripts.js";
import {
  diffSnapshots,
  filesMentioning,
  listFolders,
  listMarkers,
  mountOptions,
  snapshotFolder,
  type FolderSnapshot,
} from "./host-evidence.js";
import { TEST_COMMAND, writeHostileProject } from "./hostile-project.js";
import { describeSpellings, ranInSandbox, readTracedCalls, BARE_REFUSAL } from "./traced-calls.js";

/*
 * The eval door over the hostile project: `agentforge eval TASKS.json` copies the fixture into a
 * work tree with its git directory beside it, runs a scripted model that adds the attacks as tests
 * and runs the allow-listed test command, then judges with the host's git (`status`) and runs the
 * command check in the sandbox again. A plan-mode task runs commands that would write.
 */

const EVIDENCE = "cat evidence/git-metadata.log evidence/attributes.log evidence/bare-lookalike.log";

/** The eval task's git directory as the host holds it, at the moments the trace names. */
interface EvalView {
  readonly gitDirectory: string;
  readonly workTree: string;
  readonly git: FolderSnapshot;
  readonly gitMentionsPlanted: readonly string[];
}

describe("agentforge eval over a hostile fixture", () => {
  let root: string;
  let markers: string;
  let outcome: CliOutcome;
  const views: EvalView[] = [];
  const timings: Record<string, number> = {};

  beforeAll(async () => {
    root = mkdtempSync(path.join(tmpdir(), "hostile-eval-"));
    markers = mkdtempSync(path.join(tmpdir(), "hostile-markers-"));
    const fixture = path.join(root, "fixture");
    mkdirSync(fixture);
    writeHostileProject(fixture, { markers });
    const scripts = path.join(root, "scripts");
    mkdirSync(scripts);
    writeFileSync(
      path.join(scripts, "fix.json"),
      JSON.stringify({
        steps: [
          {
            type: "tool_calls",
            // Time for the test to look at the git directory before any tool ran.
            delay_ms: 1_500,
            calls: [
              {
                id: "call_write_1",
                name: "write_file",
                arguments: { path: "tests/git-metadata.test.sh", content: GIT_METADATA_ATTACK },
              },
              {
                id: "call_write_2",
                name: "write_file",
                arguments: { path: "tests/attributes.test.sh", content: ATTRIBUTES_ATTACK },
              },
              {
                id: "call_write_3",
                name: "write_file",
                arguments: { path: "tests/bare-lookalike.test.sh", content: BARE_LOOKALIKE_ATTACK },
              },
            ],
          },
          {
            type: "tool_calls",
            calls: [{ id: "call_tests", name: "shell", arguments: { command: TEST_COMMAND } }],
          },
          {
            type: "tool_calls",
            calls: [
              { id: "call_evidence", name: "shell", arguments: { command: EVIDENCE } },
              { id: "call_planted", name: "shell", arguments: { command: "cat evidence/planted-ran.log" } },
            ],
          },
          // And again after the last tool ran.
          { type: "text", delay_ms: 1_500, text: "Added three tests; `sh tests/run-all.sh` passes." },
        ],
      }),
    );
    writeFileSync(
      path.join(scripts, "plan.json"),
      JSON.stringify({
        steps: [
          {
            type: "tool_calls",
            calls: [
              ...writingCalls("call_write"),
              { id: "call_mounts", name: "shell", arguments: { command: "cat /proc/self/mountinfo" } },
              { id: "call_bare", name: "shell", arguments: { command: "cd fake-bare && git status" } },
            ],
          },
          { type: "text", text: "Plan: nothing to change." },
        ],
      }),
    );
    const tasks = {
      tasks: [
        {
          id: "hostile-fix",
          prompt: "Add tests for the repository layout, attributes and fixtures.",
          fixture: "fixture",
          model: { script: "scripts/fix.json" },
          mode: "build",
          approval: "never",
          allow: [TEST_COMMAND],
          expect: {
            exit_reason: "final_answer",
            files_unchanged: [".git", "fake-bare"],
            command_passes: TEST_COMMAND,
          },
        },
        {
          id: "hostile-plan",
          prompt: "Plan how to reorganise the tests.",
          fixture: "fixture",
          model: { script: "scripts/plan.json" },
          mode: "plan",
          approval: "never",
          expect: { exit_reason: "final_answer", files_changed: [], files_unchanged: [".", ".git"] },
        },
      ],
    };
    writeFileSync(path.join(root, "tasks.json"), JSON.stringify(tasks));
    const evalTemp = path.join(root, "tmp");
    mkdirSync(evalTemp);
    const traces = path.join(root, "report.traces");
    const modelCalls = (id: string): number => {
      const file = path.join(traces, `${id}.jsonl`);
      return existsSync(file)
        ? (readFileSync(file, "utf8").match(/"event_type":"model-call-start"/g) ?? []).length
        : 0;
    };
    const look = (): EvalView => {
      const [task] = listFolders(evalTemp, "agentforge-eval-hostile-fix-");
      if (task === undefined) throw new Error(`no eval task folder in ${evalTemp}`);
      const gitDirectory = path.join(task, "git");
      return {
        gitDirectory,
        workTree: path.join(task, "workspace"),
        git: snapshotFolder(gitDirectory),
        gitMentionsPlanted: filesMentioning(gitDirectory, ["planted", "mark.sh"]).filter(
          (file) => !/^(index|objects\/)/.test(file),
        ),
      };
    };
    const startedAt = Date.now();
    const running = runCli(
      [
        "eval",
        path.join(root, "tasks.json"),
        "--report",
        path.join(root, "report.json"),
        "--concurrency",
        "1",
      ],
      { TMPDIR: evalTemp, AGENTFORGE_DATA_DIR: path.join(root, "data") },
    );
    // The first model call waits 1.5 s before any tool runs; the last one after every tool ran.
    await waitFor(() => modelCalls("hostile-fix") >= 1, "the fix task's first model call", 60_000);
    views.push(look());
    await waitFor(() => modelCalls("hostile-fix") >= 4, "the fix task's last model call", 60_000);
    views.push(look());
    outcome = await running;
    timings["eval"] = Date.now() - startedAt;
  }, 120_000);

  afterAll(() => {
    if (process.env.AGENTFORGE_E2E_DEBUG) process.stdout.write(`${outcome?.stdout}\n${outcome?.stderr}\n`);
    rmSync(root, { recursive: true, force: true });
    rmSync(markers, { recursive: true, force: true });
    process.stdout.write(`hostile-repository eval timings (ms): ${JSON.stringify(timings)}\n`);
  });

  const report = (): {
    tasks: { id: string; passed: boolean; failures: string[]; command?: { output: string } }[];
  } => JSON.parse(readFileSync(path.join(root, "report.json"), "utf8"));
  const calls = (id: string) =>
    readTracedCalls(readFileSync(path.join(root, "report.traces", `${id}.jsonl`), "utf8"));

  it("passes both tasks, and nothing the fixture or the model wrote ran on the host", () => {
    expect({ code: outcome.code, failures: report().tasks.flatMap((task) => task.failures) }).toEqual({
      code: 0,
      failures: [],
    });
    expect(outcome.stdout + outcome.stderr).toContain("2 passed, 0 failed");
    expect(listMarkers(markers)).toEqual([]);
  });

  it("class 1-3 through eval: the attacks ran in the sandbox and the git directory beside the work tree did not change", () => {
    const [before, after] = views as [EvalView, EvalView];
    expect(after.gitDirectory).toBe(before.gitDirectory);
    expect(diffSnapshots(before.git, after.git)).toEqual({ added: [], removed: [], changed: [] });
    expect(before.gitMentionsPlanted).toEqual([]);
    expect(after.gitMentionsPlanted).toEqual([]);
    const fix = calls("hostile-fix");
    expect(fix.get("call_tests")?.output).toContain("== tests/git-metadata.test.sh");
    const evidence = fix.get("call_evidence")?.output ?? "";
    expect(evidence).toContain(`GITFILE-NAMES ${before.gitDirectory}`);
    expect(evidence).toContain(`TARGET ${before.gitDirectory}`);
    expect(attemptsNotRefused(evidence, before.gitDirectory)).toEqual([]);
    expect(evidence.split("\n").filter((line) => line.startsWith("WROTE "))).toEqual([]);
    expect(evidence).toMatch(/^REFUSED index gitlink: /m);
    expect(evidence).toContain("STATUS-REFUSED in fake-bare: fatal: cannot use bare repository");
    expect(evidence).not.toContain("STATUS-RAN");
    // The planted program's own log: it ran only where the attack ran it on purpose.
    const planted = fix.get("call_planted")?.output ?? "";
    expect(planted).toContain("control-in-sandbox");
    expect(
      /^stdout:\n([\s\S]*?)\nstderr:/m
        .exec(planted)?.[1]
        ?.split("\n")
        .filter((line) => line !== ""),
    ).toEqual(expect.arrayContaining(["control-in-sandbox"]));
    expect(
      new Set(
        /^stdout:\n([\s\S]*?)\nstderr:/m
          .exec(planted)?.[1]
          ?.split("\n")
          .filter((line) => line !== ""),
      ),
    ).toEqual(new Set(["control-in-sandbox"]));
    // The judge's command check ran the attacks once more, in the sandbox.
    const task = report().tasks.find((candidate) => candidate.id === "hostile-fix");
    expect(task?.command?.output).toContain("== tests/git-metadata.test.sh");
  });

  it("class 5 through eval: a plan task's commands that would write change nothing", () => {
    const plan = calls("hostile-plan");
    const mountinfo = plan.get("call_mounts")?.output ?? "";
    expect(ranInSandbox(plan.get("call_mounts"))).toBe(true);
    const workspaces = [...mountinfo.matchAll(/ (\/\S*agentforge-eval-hostile-plan-[^/\s]+\/workspace) /g)];
    expect(workspaces.length).toBeGreaterThan(0);
    expect(mountOptions(mountinfo, workspaces[0]![1]!)?.[0]).toBe("ro");
    expect(plan.get("call_bare")?.output).toMatch(BARE_REFUSAL);
    const notes = describeSpellings(plan, "call_write");
    if (notes.some((note) => note.includes("ran")))
      expect(notes.some((note) => note.includes("kernel refused"))).toBe(true);
    process.stdout.write(
      `eval plan task, writing spellings under never:\n${notes.map((note) => `- ${note}`).join("\n")}\n`,
    );
  });
});
