import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import {
  attemptsNotRefused,
  ATTRIBUTES_ATTACK,
  BARE_LOOKALIKE_ATTACK,
  ENVIRONMENT_DUMP,
  GIT_METADATA_ATTACK,
  LINKS_ATTACK,
  writingCalls,
} from "./attack-scripts.js";
import { expectHostUntouched, pushedFile } from "./expect-host-untouched.js";
import { bareGit, diffSnapshots, mountOptions, readAllText, secretsIn } from "./host-evidence.js";
import { startHostileApp, type AppRun, type HostileApp } from "./hostile-app.js";
import { TEST_COMMAND } from "./hostile-project.js";
import { describeSpellings, ranInSandbox, readTracedCalls, BARE_REFUSAL } from "./traced-calls.js";
import path from "node:path";

/*
 * The App's fix and plan flows over a repository an attacker controls, with a model the issue
 * text steers: the model writes a "test" that attacks the host, runs the allow-listed test
 * command (which executes it in the sandbox), and the App then runs the tests again, commits and
 * pushes. One serve and one worker, on Redis, serve every case; each case is one issue.
 */

/** The model side of a fix: add the attack as a test, run the tests, try a few things directly, finish. */
function fixSteps(testFile: string, attack: string, direct: readonly string[]): unknown[] {
  return [
    {
      type: "tool_calls",
      calls: [{ id: "call_write", name: "write_file", arguments: { path: testFile, content: attack } }],
    },
    {
      type: "tool_calls",
      calls: [{ id: "call_tests", name: "shell", arguments: { command: TEST_COMMAND } }],
    },
    {
      type: "tool_calls",
      calls: direct.map((command, index) => ({
        id: `call_direct_${index}`,
        name: "shell",
        arguments: { command },
      })),
    },
    { type: "text", text: `Added ${testFile}; \`${TEST_COMMAND}\` passes.` },
  ];
}

/** The planted program's own log in the pushed branch: which labels it ran under, in the sandbox. */
function plantedRuns(run: AppRun): string[] {
  return (pushedFile(run, "evidence/planted-ran.log") ?? "").split("\n").filter((line) => line !== "");
}

const timings: Record<string, number> = {};
const policyNotes: string[] = [];

describe("a hostile repository through the App (serve and worker on Redis)", () => {
  let app: HostileApp;

  beforeAll(async () => {
    const startedAt = Date.now();
    app = await startHostileApp();
    timings["start"] = Date.now() - startedAt;
  }, 60_000);

  afterAll(async () => {
    if (process.env.AGENTFORGE_E2E_DEBUG && app !== undefined)
      for (const running of app.processes)
        process.stdout.write(
          `--- ${running.name}\n${running.cli
            .output()
            .stdout.split("\n")
            .filter((line) => line.startsWith("{"))
            .map((line) => JSON.parse(line) as { time: number; msg: string })
            .map((record) => `${new Date(record.time).toISOString()} ${record.msg}`)
            .join("\n")}\n${running.cli.output().stderr}\n`,
        );
    await app?.close();
    process.stdout.write(`hostile-repository App timings (ms): ${JSON.stringify(timings)}\n`);
    if (policyNotes.length > 0)
      process.stdout.write(`writing spellings under never (policy notes):\n${policyNotes.join("\n")}\n`);
  });

  async function timed(name: string, run: () => Promise<AppRun>): Promise<AppRun> {
    const startedAt = Date.now();
    try {
      return await run();
    } finally {
      timings[name] = Date.now() - startedAt;
    }
  }

  it("class 1: git metadata written, created or replaced from the sandbox changes nothing the host reads", async () => {
    const run = await timed("gitMetadata", () =>
      app.runIssue({
        title: "Add a test for the repository layout",
        command: "@agentforge fix this",
        steps: fixSteps("tests/git-metadata.test.sh", GIT_METADATA_ATTACK, [
          "git config filter.planted.clean 'sh planted/mark.sh model-git-config filter'",
          'bash -c "git config core.hooksPath planted/hooks"',
          "git -c core.fsmonitor='sh planted/mark.sh model-dash-c fsmonitor' status",
          "cat /proc/self/mountinfo",
        ]),
      }),
    );
    expect(run.progress).toMatch(/Opened #\d+/);
    expectHostUntouched(app, run, { pushed: true });

    // The attack ran, twice (the model's test run and the App's), and found the real git directory.
    const log = pushedFile(run, "evidence/git-metadata.log") ?? "";
    expect(log.match(/^== run$/gm)).toHaveLength(2);
    expect(log).toContain(`GITFILE-NAMES ${run.atFirstRequest.gitDirectory}`);
    expect(log).toContain(`TARGET ${run.atFirstRequest.gitDirectory}`);
    expect(log).toMatch(/^ALTERNATES \/.+\/objects$/m);
    expect(log).toContain("GIT-STATUS-OK");
    expect(log).toContain("CONTROL-RAN");
    expect(attemptsNotRefused(log, run.atFirstRequest.gitDirectory)).toEqual([]);
    // Nothing went through: not the git directory, its pointer, the alternates it borrows, nor
    // the mirror's own folder (not shown to the sandbox; its path leads into a read-only root).
    expect(log.split("\n").filter((line) => line.startsWith("WROTE "))).toEqual([]);
    expect(Object.keys(run.mirrorAfter)).not.toContain("hooks/pre-receive");
    // The planted program ran only where the attack ran it on purpose, inside the sandbox.
    expect(new Set(plantedRuns(run))).toEqual(new Set(["control-in-sandbox"]));
    // Neither the `.git` pointer nor anything the attack pointed it at was committed as such.
    expect(pushedFile(run, ".git")).toBeUndefined();
    expect(pushedFile(run, "evidence/attack.planted")).toBe("added by the attack\n");

    const calls = readTracedCalls(run.traceText);
    expect(calls.get("call_tests")?.output).toContain("== tests/git-metadata.test.sh");
    // What the sandbox had mounted: the work tree writable, its git metadata read-only.
    const mountinfo = calls.get("call_direct_3")?.output ?? "";
    const mirrorObjects = /^ALTERNATES (\/.+)$/m.exec(log)![1]!;
    expect({
      workTree: mountOptions(mountinfo, run.atFirstRequest.workTree)?.[0],
      gitFile: mountOptions(mountinfo, path.join(run.atFirstRequest.workTree, ".git"))?.[0],
      gitDirectory: mountOptions(mountinfo, run.atFirstRequest.gitDirectory)?.[0],
      mirrorObjects: mountOptions(mountinfo, mirrorObjects)?.[0],
    }).toEqual({ workTree: "rw", gitFile: "ro", gitDirectory: "ro", mirrorObjects: "ro" });
    for (const [index, command] of [
      "git config filter.planted.clean",
      "bash -c git config core.hooksPath",
      "git -c core.fsmonitor",
    ].entries()) {
      const call = calls.get(`call_direct_${index}`);
      expect(call).toBeDefined();
      if (ranInSandbox(call)) policyNotes.push(`- fix flow: ${command} … (ran; changed nothing)`);
    }
  }, 90_000);

  it("class 2: attributes naming drivers, and nested repositories defining them, run nothing on the host", async () => {
    const run = await timed("attributes", () =>
      app.runIssue({
        title: "Add a test for text attributes",
        command: "@agentforge fix this",
        steps: fixSteps("tests/attributes.test.sh", ATTRIBUTES_ATTACK, [
          "git status --short",
          "git diff --stat",
        ]),
      }),
    );
    expect(run.progress).toMatch(/Opened #\d+/);
    expectHostUntouched(app, run, { pushed: true });

    const log = pushedFile(run, "evidence/attributes.log") ?? "";
    expect(log.match(/^== run$/gm)).toHaveLength(2);
    expect(log).toMatch(/^REFUSED index gitlink: /m);
    expect(log).toMatch(/^REFUSED git add nested-repo: /m);
    expect(log).toContain("GIT-STATUS-OK");
    expect(log).toContain("CONTROL-RAN");
    expect(new Set(plantedRuns(run))).toEqual(new Set(["control-in-sandbox"]));
    // What the App committed: the work tree's files under those attributes, bytes unchanged.
    expect(pushedFile(run, ".gitattributes")).toContain("* filter=planted diff=planted merge=planted");
    expect(pushedFile(run, "sub/.gitattributes")).toContain("filter=planted-sub");
    expect(pushedFile(run, "evidence/attr-target.planted")).toBe("attribute target\n");
    expect(pushedFile(run, "notes.txt")).toContain("changed by the attack");
    expect(pushedFile(run, ".gitmodules")).toContain("submodule-update");
    // Nothing of the nested repositories, and no gitlink for them.
    const paths = [...run.pushedFiles.keys()];
    for (const nested of ["nested-repo/", "nested-gitfile/", "deep/a/b/"])
      expect(paths.filter((file) => file.startsWith(nested))).toEqual([]);
    const calls = readTracedCalls(run.traceText);
    expect(ranInSandbox(calls.get("call_direct_0"))).toBe(true);
    expect(calls.get("call_direct_0")?.output).not.toContain("PLANTED-RAN");
  }, 90_000);

  it("class 3: git status inside a committed bare-repository look-alike is refused and runs nothing", async () => {
    const run = await timed("bareLookalike", () =>
      app.runIssue({
        title: "Add a test for the fixtures folder",
        command: "@agentforge fix this",
        steps: fixSteps("tests/bare-lookalike.test.sh", BARE_LOOKALIKE_ATTACK, [
          "cd fake-bare && git status",
          "cd fake-bare/wt && git status --short",
        ]),
      }),
    );
    expect(run.progress).toMatch(/Opened #\d+/);
    expectHostUntouched(app, run, { pushed: true });

    const log = pushedFile(run, "evidence/bare-lookalike.log") ?? "";
    expect(log.match(/^== run$/gm)).toHaveLength(2);
    for (const dir of ["fake-bare", "fake-bare/wt", "fake-bare/objects", "fake-bare/refs"])
      expect(log).toContain(`STATUS-REFUSED in ${dir}: fatal: cannot use bare repository`);
    expect(log).not.toContain("STATUS-RAN");
    expect(log).toMatch(/^LOG-REFUSED: /m);
    expect(new Set(plantedRuns(run))).toEqual(new Set(["control-in-sandbox"]));
    // Had git taken the folder for a repository, its status would have rewritten its index.
    expect(run.pushedFiles.get("fake-bare/index")?.object).toBe(app.baseFiles.get("fake-bare/index")?.object);
    const calls = readTracedCalls(run.traceText);
    for (const id of ["call_direct_0", "call_direct_1"]) {
      expect(calls.get(id)).toBeDefined();
      expect(calls.get(id)?.output).toMatch(BARE_REFUSAL);
      expect(calls.get(id)?.output).not.toContain("PLANTED-RAN");
    }
  }, 90_000);

  it("class 4: a planted program dumping everything it can see learns no secret, and none reaches GitHub or the trace", async () => {
    const run = await timed("secrets", () =>
      app.runIssue({
        title: "Add a test for the environment",
        command: "@agentforge fix this",
        steps: fixSteps("tests/environment.test.sh", ENVIRONMENT_DUMP, [
          "env",
          "cat /proc/self/environ",
          "cat /proc/1/environ",
        ]),
      }),
    );
    expect(run.progress).toMatch(/Opened #\d+/);
    expectHostUntouched(app, run, { pushed: true });

    // The dump ran in the sandbox (its environment is the sandbox's) and reached the branch.
    expect(pushedFile(run, "evidence/secrets/dump.log")).toContain("DUMPED");
    expect(pushedFile(run, "evidence/secrets/env.txt")).toContain("HOME=/home/sandbox");
    expect(pushedFile(run, "evidence/secrets/proc-environ.txt")).toContain("PATH=");
    expect(pushedFile(run, "evidence/secrets/git-dir.txt")).toContain(
      `## ${run.atFirstRequest.gitDirectory}/config`,
    );
    const network = pushedFile(run, "evidence/secrets/network.txt") ?? "";
    expect(network).toMatch(/UNREACHABLE/);
    expect(network).not.toMatch(/REACHED 127/);
    const setup = pushedFile(run, "evidence/setup.log") ?? "";
    expect(setup).toMatch(/UNREACHABLE 127\.0\.0\.1:\d+/);
    expect(setup).not.toMatch(/^REACHED/m);
    expect(setup).not.toMatch(/^WROTE/m);

    const forms = app.secrets.forms(app.github.token);
    const branch = [...run.pushedFiles.values()].map((file) => file.content.toString("latin1")).join("\n");
    const repository = app.github.repository("octo", "demo");
    const github = JSON.stringify({
      requests: app.github.requests.map((request) => request.body),
      comments: repository.comments.map((comment) => comment.history),
      pulls: [...repository.pulls.values()],
      checkRuns: repository.checkRuns,
      reviews: repository.reviews,
    });
    const seen = {
      pushedBranch: secretsIn(branch, forms),
      commitMessage: secretsIn(bareGit(app.bareDir, ["log", "-1", "--format=%B", run.branchSha!]), forms),
      github: secretsIn(github, forms),
      trace: secretsIn(run.traceText, forms),
      runRecords: secretsIn(readAllText(path.join(app.workerDataDir, "runs")), forms),
      whatTheModelSaw: secretsIn(JSON.stringify(run.modelRequests.map((request) => request.body)), forms),
      gitDirectoryAtPush: secretsIn(readAllText(run.atPush!.gitDirectory), forms),
      logs: secretsIn(
        app.processes
          .map((running) => `${running.cli.output().stdout}${running.cli.output().stderr}`)
          .join("\n"),
        forms,
      ),
    };
    expect(seen).toEqual({
      pushedBranch: [],
      commitMessage: [],
      github: [],
      trace: [],
      runRecords: [],
      whatTheModelSaw: [],
      gitDirectoryAtPush: [],
      logs: [],
    });
    const calls = readTracedCalls(run.traceText);
    expect(calls.get("call_direct_0")?.output).toContain("HOME=/home/sandbox");
  }, 90_000);

  it("class 4: the host's file tools, through links the sandbox made, read no secret and write nothing outside", async () => {
    const hostile = [
      ["read_file", { path: "leak/environ" }],
      ["read_file", { path: "leak/proc-self/environ" }],
      ["read_file", { path: "leak/data/canary.txt" }],
      ["read_file", { path: "leak/git-config" }],
      ["read_file", { path: "../git/config" }],
      ["read_file", { path: "/proc/self/environ" }],
      ["read_saved_output", { path: "../../../../canary.txt" }],
      ["read_saved_output", { path: "/proc/self/environ" }],
      ["grep", { pattern: "canary-", path: "leak" }],
      ["grep", { pattern: "canary-|HOSTILE_CANARY" }],
      ["glob", { pattern: "**/canary.txt" }],
      ["list_dir", { path: "leak/data" }],
      [
        "write_file",
        {
          path: "leak/git/config",
          content: '[filter "planted"]\n\tclean = sh planted/mark.sh write-file-config filter\n',
        },
      ],
      ["write_file", { path: "leak/git/info/attributes", content: "* filter=planted\n" }],
      ["write_file", { path: "leak/markers/written-by-write-file", content: "x\n" }],
      [
        "edit_file",
        { path: "leak/git-config", old_string: "[core]", new_string: "[core]\n\thooksPath = planted/hooks" },
      ],
      [
        "apply_patch",
        {
          patch:
            "--- /dev/null\n+++ b/leak/git/hooks/post-commit\n@@ -0,0 +1,2 @@\n+#!/bin/sh\n+sh planted/mark.sh apply-patch-hook\n",
        },
      ],
    ] as const;
    const run = await timed("links", () =>
      app.runIssue({
        title: "Add a test for the links",
        command: "@agentforge fix this",
        steps: [
          {
            type: "tool_calls",
            calls: [
              {
                id: "call_write",
                name: "write_file",
                arguments: { path: "tests/links.test.sh", content: LINKS_ATTACK },
              },
            ],
          },
          {
            type: "tool_calls",
            calls: [{ id: "call_tests", name: "shell", arguments: { command: TEST_COMMAND } }],
          },
          {
            type: "tool_calls",
            calls: hostile.map(([name, input], index) => ({
              id: `call_host_${index}`,
              name,
              arguments: input,
            })),
          },
          { type: "text", text: "Added tests/links.test.sh." },
        ],
      }),
    );
    expect(run.progress).toMatch(/Opened #\d+/);
    expectHostUntouched(app, run, { pushed: true });
    const log = pushedFile(run, "evidence/links.log") ?? "";
    for (const name of ["environ", "proc-self", "data", "git", "git-config", "markers"])
      expect(log).toMatch(new RegExp(`^LINKED leak/${name} -> /`, "m"));
    const calls = readTracedCalls(run.traceText);
    const outcomes = hostile.map(([name, input], index) => {
      const call = calls.get(`call_host_${index}`);
      return {
        call: `${name} ${JSON.stringify(input).slice(0, 60)}`,
        ended: call !== undefined,
        ok: call?.status === "success" && call.errorType === null,
      };
    });
    // Every one reached its tool; none that reads or writes through a link out of the work tree succeeded.
    expect(outcomes.filter((outcome) => !outcome.ended)).toEqual([]);
    const mayList = new Set(["grep", "glob", "list_dir"]);
    expect(outcomes.filter((outcome, index) => outcome.ok && !mayList.has(hostile[index]![0]))).toEqual([]);
    const forms = app.secrets.forms(app.github.token);
    expect({
      whatTheModelSaw: secretsIn(JSON.stringify(run.modelRequests.map((request) => request.body)), forms),
      trace: secretsIn(run.traceText, forms),
      pushedBranch: secretsIn(
        [...run.pushedFiles.values()].map((file) => file.content.toString("latin1")).join("\n"),
        forms,
      ),
    }).toEqual({ whatTheModelSaw: [], trace: [], pushedBranch: [] });
    // The links themselves went into the commit as links (their targets' text), nothing they point at.
    expect(run.pushedFiles.get("leak/environ")).toMatchObject({ mode: "120000" });
    expect(run.pushedFiles.get("leak/environ")?.content.toString()).toBe("/proc/self/environ");
  }, 90_000);

  it("class 5: `@agentforge plan` runs commands that would write on a read-only workspace", async () => {
    const run = await timed("plan", () =>
      app.runIssue({
        title: "How should the layout change",
        command: "@agentforge plan",
        steps: [
          { type: "tool_calls", calls: writingCalls("call_write") },
          {
            type: "tool_calls",
            calls: [
              { id: "call_mounts", name: "shell", arguments: { command: "cat /proc/self/mountinfo" } },
              { id: "call_bare", name: "shell", arguments: { command: "cd fake-bare && git status" } },
              { id: "call_tests", name: "shell", arguments: { command: TEST_COMMAND } },
              {
                id: "call_file",
                name: "write_file",
                arguments: { path: "evidence/pwned-write-file", content: "x" },
              },
            ],
          },
          { type: "text", text: "Plan: move the tests under test/, nothing else." },
        ],
      }),
    );
    expect(run.progress).toContain(`### Plan for #${run.issue}`);
    expectHostUntouched(app, run, { pushed: false });
    expect(diffSnapshots(run.atFirstRequest.tree, run.atLastRequest.tree)).toEqual({
      added: [],
      removed: [],
      changed: [],
    });
    const calls = readTracedCalls(run.traceText);
    // The commands ran in a sandbox whose workspace the kernel keeps read-only.
    const mountinfo = calls.get("call_mounts")?.output ?? "";
    expect(mountOptions(mountinfo, run.atFirstRequest.workTree)?.[0]).toBe("ro");
    expect(mountOptions(mountinfo, run.atFirstRequest.gitDirectory)?.[0]).toBe("ro");
    expect(calls.get("call_bare")?.output).toMatch(BARE_REFUSAL);
    expect(calls.get("call_file")?.status).toBe("refused");
    const notes = describeSpellings(calls, "call_write");
    policyNotes.push(...notes.map((note) => `- @agentforge plan: ${note}`));
    // A spelling that reached bash and tried its write met the read-only mount.
    if (notes.some((note) => note.includes("ran")))
      expect(notes.some((note) => note.includes("kernel refused"))).toBe(true);
  }, 90_000);
});
