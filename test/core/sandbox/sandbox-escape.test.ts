import { afterAll, beforeAll, beforeEach, afterEach, expect, it } from "@jest/globals";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, stat } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import os from "node:os";
import path from "node:path";
import {
  createSandboxRunner,
  type SandboxRunner,
  type SandboxRunnerOptions,
} from "../../../src/core/sandbox/create-sandbox-runner.js";
import { assertHostOwnedRepository } from "../../../src/core/git/host-repository.js";
import { describeWithBwrap, makeTempDirectory, removeDirectory } from "./sandbox-test-helpers.js";

const SECRET = "ghs_agentforgeTestSecret0123456789";

// Both ways a command can run: the warm sandbox kept per workspace, and a fresh bwrap per command
// (used for network-on setup commands and when the warm one is busy).
describeWithBwrap.each([
  { reuseSandbox: true, label: "warm sandbox" },
  { reuseSandbox: false, label: "fresh sandbox per command" },
])("the bwrap sandbox resists escapes ($label)", ({ reuseSandbox }) => {
  let parent: string;
  let workspace: string;
  let runner: SandboxRunner;
  const others: SandboxRunner[] = [];
  const makeRunner = (options: Omit<SandboxRunnerOptions, "mode" | "reuseSandbox">): SandboxRunner => {
    const made = createSandboxRunner({ mode: "bwrap", reuseSandbox, ...options });
    others.push(made);
    return made;
  };
  const run = (command: string, timeoutMs = 10_000) => runner.run(command, { cwd: workspace, timeoutMs });

  beforeAll(() => {
    process.env["AGENTFORGE_TEST_SECRET"] = SECRET;
    process.env["GITHUB_TOKEN"] = SECRET;
  });
  afterAll(() => {
    delete process.env["AGENTFORGE_TEST_SECRET"];
    delete process.env["GITHUB_TOKEN"];
  });
  beforeEach(async () => {
    parent = await makeTempDirectory("agentforge-escape-");
    workspace = path.join(parent, "workspace");
    await mkdir(workspace);
    runner = makeRunner({ workspaceRoot: workspace });
  });
  afterEach(async () => {
    // A normal command still works after every attack.
    const after = await run("echo still-fine > after.txt && cat after.txt");
    expect(after.exitCode).toBe(0);
    expect(after.stdout).toBe("still-fine\n");
    for (const made of others.splice(0)) made.close();
    await removeDirectory(parent);
  });

  it("shows none of the server's environment, by env or through /proc", async () => {
    const outcome = await run(
      "env; cat /proc/self/environ; cat /proc/1/environ; cat /proc/$PPID/environ; for f in /proc/[0-9]*/environ; do cat $f; done; echo done",
    );
    expect(outcome.stdout).toContain("done");
    expect(outcome.stdout).toContain("HOME=/home/sandbox");
    expect(outcome.stdout).not.toContain(SECRET);
    expect(outcome.stdout).not.toContain("AGENTFORGE_TEST_SECRET");
    expect(outcome.stderr).not.toContain(SECRET);
  });

  it("runs as an unprivileged user with no capabilities that cannot regain privileges", async () => {
    const outcome = await run(
      "id -u; grep -E '^(CapEff|CapBnd|NoNewPrivs)' /proc/self/status; unshare -r true && echo REGAINED",
    );
    expect(outcome.stdout).toMatch(/^65534\n/);
    expect(outcome.stdout).toContain("CapEff:\t0000000000000000");
    expect(outcome.stdout).toContain("CapBnd:\t0000000000000000");
    expect(outcome.stdout).toContain("NoNewPrivs:\t1");
    expect(outcome.stdout).not.toContain("REGAINED");
  });

  it("cannot reach the network: DNS, the host's loopback services or the metadata address", async () => {
    const server: Server = createServer((socket) => socket.end("reached\n"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    const port = typeof address === "object" && address !== null ? address.port : 0;
    try {
      const outcome = await run(
        [
          `(exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3) && echo LOCAL-OPEN`,
          "(echo > /dev/tcp/127.0.0.1/6379) && echo REDIS-OPEN",
          "(echo > /dev/tcp/169.254.169.254/80) && echo METADATA-OPEN",
          "getent hosts example.com && echo DNS-OK",
          "ls /sys/class/net 2>/dev/null; cat /proc/net/dev",
        ].join("; "),
        15_000,
      );
      expect(outcome.stdout).not.toMatch(/reached|LOCAL-OPEN|REDIS-OPEN|METADATA-OPEN|DNS-OK/);
      // Only the loopback interface of a fresh network namespace exists.
      expect(outcome.stdout).toMatch(/\blo:/);
      expect(outcome.stdout).not.toMatch(/\b(eth|ens|enp|wl|docker|veth)\w*:/);
    } finally {
      server.close();
    }
  });

  it("cannot write outside the workspace: the host's /tmp, /etc, the parent folder, HOME", async () => {
    const marker = `pwned-${process.pid}-${Date.now()}`;
    const hostTmpFile = path.join(os.tmpdir(), marker);
    const outcome = await run(
      [
        `echo x > ${hostTmpFile}`,
        `echo x > /etc/${marker}`,
        `echo x > ${path.join(parent, marker)}`,
        `echo x > ${path.join(os.homedir(), marker)}`,
        `echo x > /usr/${marker}`,
        `ls ${os.homedir()} && echo HOST-HOME-VISIBLE`,
        "ls /work /run /var/run/docker.sock /root 2>&1",
        "echo private > /tmp/inside && cat /tmp/inside",
      ].join("; "),
    );
    expect(outcome.stdout).not.toContain("HOST-HOME-VISIBLE");
    expect(outcome.stdout).toContain("private");
    expect(outcome.stdout).toMatch(/No such file or directory/);
    for (const target of [
      hostTmpFile,
      `/etc/${marker}`,
      path.join(parent, marker),
      path.join(os.homedir(), marker),
      `/usr/${marker}`,
    ]) {
      expect(existsSync(target)).toBe(false);
    }
  });

  it("leaves nothing writable but the workspace and the private /tmp, HOME and /dev/shm", async () => {
    const outcome = await run(
      [
        "for target in /x /home/x /var/x /dev/x /usr/x /etc/x; do touch $target 2>/dev/null && echo WROTE-$target; done",
        "touch /tmp/x ~/x /dev/shm/x /var/tmp/y && ls /tmp ~ /dev/shm | grep -c '^x$'",
      ].join("; "),
    );
    expect(outcome.stdout).not.toContain("WROTE");
    expect(outcome.stdout.trim().split("\n").at(-1)).toBe("3");
  });

  it("a symlink made inside the workspace leads to the sandbox's view, not the host's", async () => {
    const marker = `pwned-link-${process.pid}-${Date.now()}`;
    const outcome = await run(
      `ln -s / escape && echo x > escape/tmp/${marker}; echo y > escape/etc/${marker}; ln -s ${parent} up && echo z > up/${marker}; ls escape/root 2>&1; true`,
    );
    expect(outcome.exitCode).toBe(0);
    expect(existsSync(path.join(os.tmpdir(), marker))).toBe(false);
    expect(existsSync(`/etc/${marker}`)).toBe(false);
    expect(existsSync(path.join(parent, marker))).toBe(false);
    expect(outcome.stdout).toMatch(/No such file or directory/);
  });

  it("cannot write git hooks or config, nor swap the .git folder", async () => {
    execFileSync("git", ["init", "-q", workspace]);
    const configBefore = await readFile(path.join(workspace, ".git", "config"), "utf8");
    const outcome = await run(
      [
        "echo 'touch /tmp/hooked' > .git/hooks/pre-commit",
        "chmod +x .git/hooks/pre-commit",
        "echo '[core]' >> .git/config",
        "git config core.hooksPath /tmp/evil",
        "rm -rf .git/hooks",
        "mv .git .git-old && mkdir -p .git/hooks && echo evil > .git/hooks/post-checkout && echo SWAPPED",
        "echo ok-to-edit > tracked.txt",
      ].join("; "),
    );
    expect(outcome.stdout).not.toContain("SWAPPED");
    expect(existsSync(path.join(workspace, ".git", "hooks", "pre-commit"))).toBe(false);
    expect(existsSync(path.join(workspace, ".git-old"))).toBe(false);
    expect((await stat(path.join(workspace, ".git", "hooks"))).isDirectory()).toBe(true);
    expect(await readFile(path.join(workspace, ".git", "config"), "utf8")).toBe(configBefore);
    expect(await readFile(path.join(workspace, "tracked.txt"), "utf8")).toBe("ok-to-edit\n");
    // Read-only git commands keep working inside.
    const status = await run("git status --short");
    expect(status.exitCode).toBe(0);
    expect(status.stdout).toContain("tracked.txt");
  });

  it("a git folder that .git points to inside the workspace is the sandbox's to write, and never the host's to read", async () => {
    execFileSync("git", ["init", "-q", `--separate-git-dir=${path.join(workspace, ".repo")}`, workspace]);
    const outcome = await run("echo '[x]' >> .repo/config && echo WROTE");
    // Not git metadata the host uses: the host's git refuses a git directory there outright.
    expect(outcome.stdout).toContain("WROTE");
    await expect(
      assertHostOwnedRepository({ gitDirectory: path.join(workspace, ".repo"), workTree: workspace }),
    ).rejects.toMatchObject({ code: "UNSAFE_REPOSITORY" });
    // The `.git` file itself is shown read-only, like any `.git` at the root.
    const pointer = await run("echo 'gitdir: /etc' > .git && echo REPOINTED");
    expect(pointer.stdout).not.toContain("REPOINTED");
    expect(await readFile(path.join(workspace, ".git"), "utf8")).toContain(".repo");
  });

  it("a linked worktree's repository outside the workspace is not mounted at all", async () => {
    const main = path.join(parent, "main");
    execFileSync("git", ["init", "-q", main]);
    execFileSync("git", [
      "-C",
      main,
      "-c",
      "user.name=t",
      "-c",
      "user.email=t@example.com",
      "commit",
      "-qm",
      "init",
      "--allow-empty",
    ]);
    const linked = path.join(workspace, "linked");
    execFileSync("git", ["-C", main, "worktree", "add", "-q", linked]);
    const configBefore = await readFile(path.join(main, ".git", "config"), "utf8");
    const linkedRunner = makeRunner({ workspaceRoot: linked });
    const outcome = await linkedRunner.run(
      `echo evil > ${main}/.git/hooks/pre-commit; echo '[x]' >> ${main}/.git/config; ls ${main} && echo VISIBLE`,
      {
        cwd: linked,
        timeoutMs: 10_000,
      },
    );
    expect(outcome.stdout).not.toContain("VISIBLE");
    expect(existsSync(path.join(main, ".git", "hooks", "pre-commit"))).toBe(false);
    expect(await readFile(path.join(main, ".git", "config"), "utf8")).toBe(configBefore);
  });

  it("kills a command at its timeout together with its background children", async () => {
    const started = Date.now();
    const outcome = await run("sleep 100 & sleep 100 & echo started; sleep 100", 1000);
    expect(outcome.timedOut).toBe(true);
    expect(outcome.stdout).toContain("started");
    expect(Date.now() - started).toBeLessThan(5000);
    const left = execFileSync("ps", ["-eo", "args"], { encoding: "utf8" })
      .split("\n")
      .filter((line) => line.trim() === "sleep 100");
    expect(left).toEqual([]);
  });

  it("a command's background children do not outlive it", async () => {
    const outcome = await run("(sleep 100 &) ; nohup sleep 100 >/dev/null 2>&1 & echo bye");
    expect(outcome.exitCode).toBe(0);
    const left = execFileSync("ps", ["-eo", "args"], { encoding: "utf8" })
      .split("\n")
      .filter((line) => line.trim() === "sleep 100");
    expect(left).toEqual([]);
  });

  it("caps a flood of output and stops the command", async () => {
    const flooding = makeRunner({
      workspaceRoot: workspace,
      limits: { maxOutputBytes: 10_000, killAfterOutputBytes: 1_000_000 },
    });
    const outcome = await flooding.run("yes", { cwd: workspace, timeoutMs: 10_000 });
    expect(outcome.timedOut).toBe(false);
    expect(outcome.outputTruncated).toBe(true);
    expect(outcome.stdout.length).toBeLessThan(11_000);
    expect(outcome.stdout).toMatch(/bytes omitted/);
  });

  it("stops a file from growing past the file size limit", async () => {
    const limited = makeRunner({
      workspaceRoot: workspace,
      limits: { maxFileBytes: 64 * 1024 },
    });
    const outcome = await limited.run("head -c 1000000 /dev/zero > big.bin", {
      cwd: workspace,
      timeoutMs: 10_000,
    });
    expect(outcome.exitCode).not.toBe(0);
    expect((await stat(path.join(workspace, "big.bin"))).size).toBeLessThanOrEqual(64 * 1024);
  });

  it("an abort signal kills the command group", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const started = Date.now();
    const outcome = await runner.run("sleep 100 & sleep 100", {
      cwd: workspace,
      timeoutMs: 20_000,
      signal: controller.signal,
    });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(outcome.exitCode).toBeNull();
    expect(outcome.timedOut).toBe(false);
  });
});
