import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  copyFileSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";

/** Where the sandbox mounts the scratch folders; the judge is told the same paths. */
export const SANDBOX_WORKSPACE = "/workspace";
export const SANDBOX_HOME = "/home/sandbox";

export type SandboxCheck =
  { readonly available: true } | { readonly available: false; readonly reason: string };

/**
 * Whether bubblewrap can make a sandbox here, tried for real: first the plain `--ro-bind / /`,
 * then the layout the property test uses.
 */
export function checkBubblewrap(): SandboxCheck {
  const plain = spawnSync("bwrap", ["--ro-bind", "/", "/", "true"], { encoding: "utf8", timeout: 10_000 });
  if (plain.error !== undefined || plain.status !== 0) {
    return {
      available: false,
      reason: `\`bwrap --ro-bind / / true\` failed: ${plain.error?.message ?? plain.stderr.trim()}`,
    };
  }
  const base = mkdtempSync(path.join(os.tmpdir(), "agentforge-bwrap-check-"));
  try {
    for (const folder of ["work", "home", "tmp"]) {
      mkdirSync(path.join(base, folder));
    }
    const layout = spawnSync("bwrap", [...sandboxArguments(base), "--", "/bin/bash", "-c", "true"], {
      encoding: "utf8",
      timeout: 10_000,
    });
    return layout.status === 0
      ? { available: true }
      : {
          available: false,
          reason: `the sandbox layout failed: ${layout.error?.message ?? layout.stderr.trim()}`,
        };
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

/**
 * Like the harness's sandbox: a read-only system, no network, a clean environment, and only three
 * folders writable, all of them scratch folders of this run: the workspace (the command's
 * folder), HOME and /tmp.
 */
function sandboxArguments(base: string): string[] {
  const args = [
    "--unshare-all",
    "--die-with-parent",
    "--new-session",
    "--ro-bind",
    "/usr",
    "/usr",
    "--ro-bind",
    "/etc",
    "/etc",
  ];
  for (const top of ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"]) {
    const stats = lstatSync(top, { throwIfNoEntry: false });
    if (stats?.isSymbolicLink() === true) {
      args.push("--symlink", readlinkSync(top), top);
    } else if (stats !== undefined) {
      args.push("--ro-bind", top, top);
    }
  }
  args.push(
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    "--bind",
    path.join(base, "tmp"),
    "/tmp",
    "--bind",
    path.join(base, "home"),
    SANDBOX_HOME,
    "--bind",
    path.join(base, "work"),
    SANDBOX_WORKSPACE,
    "--remount-ro",
    "/",
    "--chdir",
    SANDBOX_WORKSPACE,
    "--clearenv",
    "--setenv",
    "PATH",
    "/usr/local/bin:/usr/bin:/bin",
    "--setenv",
    "HOME",
    SANDBOX_HOME,
    "--setenv",
    "TMPDIR",
    "/tmp",
    "--setenv",
    "LANG",
    "C.UTF-8",
    // git refreshes .git/index opportunistically on `git status`; the harness's read-only
    // judgement is about what commands do, not about this cache.
    "--setenv",
    "GIT_OPTIONAL_LOCKS",
    "0",
    "--setenv",
    "GIT_CONFIG_NOSYSTEM",
    "1",
  );
  return args;
}

/** A file that, if run or if it ran, leaves a marker: `0/ls` is found by `PATH=0` (`printf %n PATH`). */
const MARKER_SCRIPT = `#!/bin/sh\n/usr/bin/touch ${SANDBOX_WORKSPACE}/RAN-FROM-WORKSPACE\n`;

/** Builds the workspace every command starts from, once: a git repository with hostile content. */
export function createTemplate(): string {
  const template = mkdtempSync(path.join(os.tmpdir(), "agentforge-property-template-"));
  const work = path.join(template, "work");
  mkdirSync(path.join(work, "sub"), { recursive: true });
  mkdirSync(path.join(work, "0"));
  writeFileSync(path.join(work, "f"), "hello\nworld\n");
  writeFileSync(path.join(work, "g"), "hello\nthere\n");
  writeFileSync(path.join(work, "a.txt"), "a[1]\n");
  writeFileSync(path.join(work, "sp ace"), "x\n");
  writeFileSync(path.join(work, "sub", "s.txt"), "s\n");
  writeFileSync(path.join(work, "data.json"), '{"name":"x"}\n');
  // File names an attacker can commit; globs and `find` hand them to commands.
  for (const name of ["-v", "--output=GLOB", "a[$(touch GLOB)]", "$(touch GLOB)", "-delete", "-o"]) {
    writeFileSync(path.join(work, name), "");
  }
  for (const name of ["ls", "cat", "grep", "sort", "git"]) {
    writeFileSync(path.join(work, "0", name), MARKER_SCRIPT);
    chmodSync(path.join(work, "0", name), 0o755);
  }
  writeFileSync(path.join(work, "ls"), MARKER_SCRIPT);
  chmodSync(path.join(work, "ls"), 0o755);
  const git = (cwd: string, ...args: string[]): void => {
    const result = spawnSync("git", args, {
      cwd,
      encoding: "utf8",
      env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", HOME: template },
    });
    if (result.status !== 0) {
      throw new Error(`git ${args.join(" ")} failed: ${result.stderr}`);
    }
  };
  // A repository committed inside the checkout: found by git from its folder, and obeyed.
  // No template: git's sample hooks would only make every copy slower.
  git(work, "init", "-q", "--template=", "--bare", "vendor/evil");
  git(path.join(work, "vendor", "evil"), "config", "core.bare", "false");
  git(path.join(work, "vendor", "evil"), "config", "core.worktree", "..");
  git(
    path.join(work, "vendor", "evil"),
    "config",
    "core.fsmonitor",
    `/usr/bin/touch ${SANDBOX_WORKSPACE}/FSMONITOR; false`,
  );
  git(work, "init", "-q", "--template=");
  git(work, "-c", "user.name=t", "-c", "user.email=t@t", "add", "f", "g", "a.txt", "sub");
  git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "init");
  writeFileSync(path.join(work, "f"), "hello\nworld\nchanged\n");
  // git rewrites .git/index when it finds the cached file stats stale (`git diff` does, even with
  // GIT_OPTIONAL_LOCKS=0). Every copy gets new inodes and ctimes, so the index caches only size
  // and mtime (core.checkStat=minimal), the copies keep mtimes, and the files are older than the
  // index, so no command finds anything to refresh.
  git(work, "config", "core.checkStat", "minimal");
  git(work, "config", "core.trustctime", "false");
  setOldTimes(work);
  git(work, "status", "--porcelain");
  return template;
}

const OLD_TIME = new Date("2020-01-01T00:00:00Z");

function setOldTimes(folder: string): void {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== ".git") {
        setOldTimes(full);
      }
    } else {
      utimesSync(full, OLD_TIME, OLD_TIME);
    }
  }
}

/** Node's cpSync takes hundreds of milliseconds for a hundred files on a busy machine; this does not. */
function copyTree(from: string, to: string): void {
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) {
      mkdirSync(target);
      copyTree(source, target);
    } else {
      copyFileSync(source, target);
      const stats = lstatSync(source);
      chmodSync(target, stats.mode & 0o7777);
      utimesSync(target, stats.atime, stats.mtime);
    }
  }
}

export interface FileState {
  readonly kind: string;
  readonly size: number;
  readonly mtimeMs: number;
  readonly mode: number;
  readonly digest: string;
}

/** Every entry below `root`: kind, size, mtime, mode and a digest of the contents. */
export function snapshot(root: string): Map<string, FileState> {
  const states = new Map<string, FileState>();
  const walk = (folder: string): void => {
    for (const name of readdirSync(folder)) {
      const full = path.join(folder, name);
      const stats = lstatSync(full);
      const kind = stats.isDirectory()
        ? "directory"
        : stats.isSymbolicLink()
          ? "symlink"
          : stats.isFile()
            ? "file"
            : "other";
      const digest =
        kind === "file"
          ? createHash("sha256").update(readFileSync(full)).digest("hex")
          : kind === "symlink"
            ? readlinkSync(full)
            : "";
      states.set(path.relative(root, full), {
        kind,
        size: stats.size,
        mtimeMs: stats.mtimeMs,
        mode: stats.mode,
        digest,
      });
      if (kind === "directory") {
        walk(full);
      }
    }
  };
  walk(root);
  return states;
}

/** What differs between two snapshots, one line per path. */
export function describeChanges(before: Map<string, FileState>, after: Map<string, FileState>): string[] {
  const changes: string[] = [];
  for (const [name, state] of after) {
    const old = before.get(name);
    if (old === undefined) {
      changes.push(`created ${name}`);
    } else if (JSON.stringify(old) !== JSON.stringify(state) && old.kind !== "directory") {
      changes.push(`changed ${name}`);
    } else if (old.kind === "directory" && old.mode !== state.mode) {
      // A folder's mtime moves when a file is made and removed again (tac and sort keep
      // temporary files in TMPDIR); what is in it is compared entry by entry.
      changes.push(`changed folder ${name}`);
    }
  }
  for (const name of before.keys()) {
    if (!after.has(name)) {
      changes.push(`removed ${name}`);
    }
  }
  return changes;
}

export interface SandboxRun {
  readonly changes: readonly string[];
  readonly exitCode: number | null;
  readonly timedOut: boolean;
}

/**
 * Runs commands with bash, each in a fresh copy of the template. Removing a copy takes longer
 * than running the command on a busy machine, so copies are removed in batches in the background
 * and `close` waits for the last of them.
 */
export class SandboxRunner {
  private readonly runRoot: string;
  private pending: string[] = [];
  private readonly removals: Promise<void>[] = [];
  private count = 0;

  constructor(private readonly template: string) {
    this.runRoot = mkdtempSync(path.join(os.tmpdir(), "agentforge-property-runs-"));
  }

  async run(command: string, timeoutMs = 5000): Promise<SandboxRun> {
    const base = path.join(this.runRoot, String(this.count++));
    mkdirSync(base);
    copyTree(this.template, base);
    mkdirSync(path.join(base, "home"));
    mkdirSync(path.join(base, "tmp"));
    const before = snapshot(base);
    const outcome = await new Promise<{ exitCode: number | null; timedOut: boolean }>((resolve, reject) => {
      const child = spawn("bwrap", [...sandboxArguments(base), "--", "/bin/bash", "-c", command], {
        stdio: ["ignore", "ignore", "ignore"],
      });
      let expired = false;
      const timer = setTimeout(() => {
        expired = true;
        child.kill("SIGKILL");
      }, timeoutMs);
      child.on("error", (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.on("close", (code) => {
        clearTimeout(timer);
        resolve({ exitCode: code, timedOut: expired });
      });
    });
    const changes = describeChanges(before, snapshot(base));
    this.discard(base);
    return { changes, ...outcome };
  }

  async close(): Promise<void> {
    this.flush();
    await Promise.all(this.removals);
    rmSync(this.runRoot, { recursive: true, force: true });
  }

  private discard(base: string): void {
    this.pending.push(base);
    if (this.pending.length >= 40) {
      this.flush();
    }
  }

  private flush(): void {
    if (this.pending.length === 0) {
      return;
    }
    const batch = this.pending;
    this.pending = [];
    this.removals.push(
      new Promise<void>((resolve) => {
        const child = spawn("rm", ["-rf", "--", ...batch], { stdio: "ignore" });
        child.on("error", () => resolve());
        child.on("close", () => resolve());
      }),
    );
  }
}
