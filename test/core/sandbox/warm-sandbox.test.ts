import { afterEach, beforeEach, expect, it } from "@jest/globals";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, realpath, writeFile } from "node:fs/promises";
import path from "node:path";
import { createSandboxRunner, type SandboxRunner } from "../../../src/core/sandbox/create-sandbox-runner.js";
import { waitUntil } from "../../support/wait-until.js";
import { describeWithBwrap, detection, makeTempDirectory, removeDirectory } from "./sandbox-test-helpers.js";

// When the sandbox's pid 1 started, in clock ticks since boot: namespace ids are reused once freed,
// so they cannot tell two sandboxes apart over time, but two sandboxes never share a pid 1.
const SANDBOX_IDENTITY = "cut -d' ' -f22 /proc/1/stat";

function hostProcessesMatching(pattern: RegExp): string[] {
  return execFileSync("ps", ["-eo", "args"], { encoding: "utf8" })
    .split("\n")
    .filter((line) => pattern.test(line));
}

describeWithBwrap("the warm sandbox", () => {
  let workspace: string;
  let runner: SandboxRunner;
  const run = (command: string, timeoutMs = 10_000, env?: Record<string, string>) =>
    runner.run(command, { cwd: workspace, timeoutMs, ...(env ? { env } : {}) });

  beforeEach(async () => {
    workspace = await makeTempDirectory("agentforge-warm-");
    runner = createSandboxRunner({ mode: "bwrap", workspaceRoot: workspace });
  });
  afterEach(async () => {
    runner.close();
    await removeDirectory(workspace);
  });

  it("serves consecutive commands from one sandbox, while a fresh runner builds its own", async () => {
    const first = await run(SANDBOX_IDENTITY);
    const second = await run(SANDBOX_IDENTITY);
    expect(first.stdout).toMatch(/^\d+\n$/);
    expect(second.stdout).toBe(first.stdout);
    const cold = createSandboxRunner({ mode: "bwrap", workspaceRoot: workspace, reuseSandbox: false });
    const coldOnce = await cold.run(SANDBOX_IDENTITY, { cwd: workspace, timeoutMs: 10_000 });
    const coldTwice = await cold.run(SANDBOX_IDENTITY, { cwd: workspace, timeoutMs: 10_000 });
    expect(coldOnce.stdout).not.toBe(first.stdout);
    expect(coldTwice.stdout).not.toBe(coldOnce.stdout);
  });

  it("kills what a command leaves behind, even processes that left its group or session", async () => {
    const marker = `${process.pid}${Date.now() % 100_000}`;
    const before = await run(SANDBOX_IDENTITY);
    const outcome = await run(
      `setsid sleep ${marker}1 & (sleep ${marker}2 &) ; perl -e 'setpgrp; exec "sleep", "${marker}3"' & echo started`,
    );
    expect(outcome.stdout).toBe("started\n");
    expect(hostProcessesMatching(new RegExp(`sleep ${marker}`))).toEqual([]);
    const next = await run(`${SANDBOX_IDENTITY}; ps -e --no-headers -o args`);
    const [namespace, ...inside] = next.stdout.trim().split("\n");
    // Swept by the sandbox itself: it stays in use, and only its own program and this ps run in it.
    expect(namespace).toBe(before.stdout.trim());
    expect(inside).toHaveLength(2);
  });

  it("gives every command an empty /tmp, HOME and /dev/shm and its own variables", async () => {
    const writes = await run(
      "echo kept > /tmp/a; echo kept > ~/b; echo kept > /dev/shm/c; echo FOO=$FOO",
      10_000,
      {
        FOO: "one",
      },
    );
    expect(writes.stdout).toBe("FOO=one\n");
    const reads = await run("ls -A /tmp ~ /dev/shm; echo FOO=${FOO-unset}");
    expect(reads.stdout).not.toContain("kept");
    expect(reads.stdout).not.toMatch(/\b[abc]\n/);
    expect(reads.stdout).toContain("FOO=unset");
  });

  it("retires a sandbox in which a command left a System V object, so the next one starts clean", async () => {
    const first = await run(`${SANDBOX_IDENTITY}; ipcmk -M 4096 >/dev/null && ipcs -m | grep -c 4096`);
    expect(first.stdout.split("\n")[1]).toBe("1");
    const next = await run(`${SANDBOX_IDENTITY}; ipcs -m | grep -c 4096`);
    expect(next.stdout.split("\n")[0]).not.toBe(first.stdout.split("\n")[0]);
    expect(next.stdout.split("\n")[1]).toBe("0");
  });

  it("keeps the workspace when it lies inside the private /tmp", async () => {
    // Test workspaces live under the host's /tmp, which inside is the wiped scratch folder.
    await run("echo data > kept.txt; mkdir -p /tmp/other && echo x > /tmp/other/file");
    const outcome = await run("cat kept.txt; ls -A /tmp/other 2>&1 | head -1");
    expect(outcome.stdout).toMatch(/^data\n.*No such file or directory/);
    expect(await readFile(path.join(workspace, "kept.txt"), "utf8")).toBe("data\n");
  });

  it("keeps serving from one sandbox when the workspace's git metadata lies beside it in the private /tmp", async () => {
    // The App's layout: the work tree and, beside it, a git folder shown read-only. The wipe after
    // each command must pass it by; were it tried (and refused), every command would get a new sandbox.
    const task = await makeTempDirectory("agentforge-warm-task-");
    try {
      const tree = path.join(task, "tree");
      const gitFolder = path.join(task, "git");
      execFileSync("mkdir", [tree, gitFolder]);
      execFileSync("sh", ["-c", `echo meta > ${gitFolder}/HEAD`]);
      const options = { cwd: tree, workspaceRoot: tree, timeoutMs: 10_000, readOnlyPaths: [gitFolder] };
      const first = await runner.run(SANDBOX_IDENTITY, options);
      const second = await runner.run(`${SANDBOX_IDENTITY}; cat ${gitFolder}/HEAD`, options);
      expect(second.stdout).toBe(`${first.stdout}meta\n`);
    } finally {
      await removeDirectory(task);
    }
  });

  it("keeps serving from one sandbox when the workspace lies under /var/tmp (a link to /tmp inside)", async () => {
    const underVarTmp = await realpath(await mkdtemp(path.join("/var/tmp", "agentforge-warm-")));
    try {
      const options = { cwd: underVarTmp, workspaceRoot: underVarTmp, timeoutMs: 10_000 };
      const first = await runner.run(`${SANDBOX_IDENTITY}; echo kept > kept.txt`, options);
      const second = await runner.run(`${SANDBOX_IDENTITY}; cat kept.txt`, options);
      expect(second.stdout).toBe(`${first.stdout}kept\n`);
    } finally {
      await removeDirectory(underVarTmp);
    }
  });

  it("cannot be killed or disturbed by a command", async () => {
    const before = await run(SANDBOX_IDENTITY);
    await run(
      "kill -KILL 1; kill -TERM 1; kill -KILL -1; echo junk > /proc/1/fd/5; echo junk > /proc/1/fd/0; true",
    );
    const after = await run(SANDBOX_IDENTITY);
    expect(after.exitCode).toBe(0);
    expect(after.stdout).toBe(before.stdout);
  });

  it("cannot ptrace the sandbox's own program or read its memory and environment", async () => {
    // PTRACE_ATTACH is syscall 101 on x86-64 and 117 on arm64; perl ships with git.
    const attach = `perl -e 'my $n = ($^O eq "linux" && \`uname -m\` =~ /aarch64/) ? 117 : 101; my $r = syscall($n, 16, 1, 0, 0); print "attach=$r\\n"'`;
    const outcome = await run(
      `${attach}; cat /proc/1/environ >/dev/null 2>&1 || echo environ-denied; head -c1 /proc/1/mem >/dev/null 2>&1 || echo mem-denied`,
    );
    expect(outcome.stdout).toBe("attach=-1\nenviron-denied\nmem-denied\n");
    // And its commands are ordinary processes: the same check against one of them succeeds.
    const own = await run("sleep 5 & cat /proc/$!/environ >/dev/null && echo readable; kill %1");
    expect(own.stdout).toBe("readable\n");
    expect((await run("echo fine")).stdout).toBe("fine\n");
  });

  it("runs the next command after a timeout, in the same sandbox", async () => {
    const before = await run(SANDBOX_IDENTITY);
    const slow = await run("sleep 100 & echo started; sleep 100", 500);
    expect(slow.timedOut).toBe(true);
    expect(slow.exitCode).toBeNull();
    expect(slow.stdout).toBe("started\n");
    const after = await run(SANDBOX_IDENTITY);
    expect(after.stdout).toBe(before.stdout);
  });

  it("kills a command cancelled after its request was sent but before it started, in the same sandbox", async () => {
    const before = await run(SANDBOX_IDENTITY);
    const controller = new AbortController();
    // The command's run listens for the abort just before the request is written to the sandbox;
    // aborting in the next microtask cancels it once sent, before the sandbox has read and forked it.
    const signal = controller.signal;
    const listen = signal.addEventListener.bind(signal);
    signal.addEventListener = ((...args: Parameters<AbortSignal["addEventListener"]>) => {
      listen(...args);
      queueMicrotask(() => controller.abort());
    });
    const cancelled = await runner.run("echo ran; sleep 100", { cwd: workspace, timeoutMs: 60_000, signal });
    expect(cancelled.timedOut).toBe(false);
    expect(cancelled.exitCode).toBeNull();
    expect(cancelled.signal).toBe("SIGKILL");
    // Killed by the sandbox's own sweep, not by tearing the sandbox down after the grace period.
    const after = await run(SANDBOX_IDENTITY);
    expect(after.stdout).toBe(before.stdout);
  });

  it("tears down a sandbox that stops answering and gives the next command a new one", async () => {
    const before = await run(SANDBOX_IDENTITY);
    const server = execFileSync("ps", ["-eo", "pid=,args="], { encoding: "utf8" })
      .split("\n")
      .find((line) => line.includes(`agentforge-warm-sandbox ${workspace}`) && !line.includes("bwrap"));
    const serverPid = Number(server?.trim().split(" ")[0]);
    expect(serverPid).toBeGreaterThan(1);
    process.kill(serverPid, "SIGSTOP");
    const started = Date.now();
    const stalled = await run("echo never", 300);
    expect(stalled.timedOut).toBe(true);
    expect(stalled.exitCode).toBeNull();
    expect(Date.now() - started).toBeLessThan(5000);
    const after = await run(SANDBOX_IDENTITY);
    expect(after.exitCode).toBe(0);
    expect(after.stdout).not.toBe(before.stdout);
  });

  it("protects a .git folder that appears between two commands", async () => {
    const first = await run(SANDBOX_IDENTITY);
    execFileSync("git", ["init", "-q", workspace]);
    const attack = await run(
      `${SANDBOX_IDENTITY}; echo evil > .git/hooks/pre-commit; echo '[x]' >> .git/config`,
    );
    // A new .git means a new sandbox, with the read-only binds for it.
    expect(attack.stdout.split("\n")[0]).not.toBe(first.stdout.trim());
    expect(existsSync(path.join(workspace, ".git", "hooks", "pre-commit"))).toBe(false);
    expect(await readFile(path.join(workspace, ".git", "config"), "utf8")).not.toContain("[x]");
  });

  it("runs a second command at the same time in a fresh sandbox of its own", async () => {
    // The first command holds the warm sandbox until the second one has finished.
    const slowRun = run(
      `${SANDBOX_IDENTITY}; cat /proc/self/cgroup; touch slow-started; while [ ! -e release ]; do sleep 0.01; done`,
    );
    await waitUntil(() => existsSync(path.join(workspace, "slow-started")), "the first command to start");
    const quick = await run(`${SANDBOX_IDENTITY}; cat /proc/self/cgroup`);
    await writeFile(path.join(workspace, "release"), "");
    const slow = await slowRun;
    expect(slow.exitCode).toBe(0);
    expect(quick.exitCode).toBe(0);
    expect(quick.stdout.split("\n")[0]).not.toBe(slow.stdout.split("\n")[0]);
    if (detection.processLimit === "cgroup") {
      const pidsCgroup = (text: string) => /:pids:(\S+)/.exec(text)?.[1];
      expect(pidsCgroup(slow.stdout)).toMatch(/agentforge-/);
      expect(pidsCgroup(quick.stdout)).toMatch(/agentforge-/);
      expect(pidsCgroup(quick.stdout)).not.toBe(pidsCgroup(slow.stdout));
    }
  });

  it("keeps at most two workspaces' sandboxes open, closing the least recently used", async () => {
    const shared = createSandboxRunner({ mode: "bwrap" });
    const folders = [
      workspace,
      await makeTempDirectory("agentforge-warm-b-"),
      await makeTempDirectory("agentforge-warm-c-"),
    ];
    try {
      for (const folder of folders) await shared.run("true", { cwd: folder, timeoutMs: 10_000 });
      const isOpen = (folder: string) =>
        hostProcessesMatching(new RegExp(`agentforge-warm-sandbox ${folder}$`)).length > 0;
      // The first is killed when the third starts; the others stay until they are idle for 30 s.
      await waitUntil(() => !isOpen(folders[0]!), "the least recently used sandbox to end");
      expect(folders.filter(isOpen)).toEqual(folders.slice(1));
    } finally {
      shared.close();
      for (const folder of folders.slice(1)) await removeDirectory(folder);
    }
  });

  it("ends with close(), leaving no process behind", async () => {
    await run("true");
    const mine = new RegExp(`agentforge-warm-sandbox ${workspace.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`);
    expect(hostProcessesMatching(mine).length).toBeGreaterThan(0);
    runner.close();
    await waitUntil(() => hostProcessesMatching(mine).length === 0, "the warm sandbox's processes to end");
  });
});
