import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { evaluateCommandWith } from "../../../src/core/policy/evaluate-command.js";
import { loadBashParser, type BashParser } from "../../../src/core/policy/load-bash-parser.js";
import { buildSandboxEnvironment } from "../../../src/core/sandbox/sandbox-environment.js";
import { checkBubblewrap, createTemplate, SandboxRunner, SANDBOX_WORKSPACE } from "./bash-sandbox.js";

/**
 * Command lines an outside reader found that bash runs differently from the judge's first
 * reading. Each must really change a file when bash runs it in the sandbox (so the case proves
 * something), and the judge must not approve it in `never`.
 */
const ATTACKS: readonly (readonly [string, string])[] = [
  ["a line that is only a backslash-newline starts a new command", "ls\n\\\ntouch M"],
  ["the same after a redirection", "cat f 2>/dev/null\n\\\ntouch M"],
  ["the same after a declaration", "declare x\n\\\nrm f"],
  ["writing to `/dev/fd/0` reopens the file on standard input", "echo x <f >/dev/fd/0"],
  ["writing to `/dev/fd/3` reopens the file read on descriptor 3", "cat g 3<f >>/dev/fd/3"],
  ["`/dev/stdout` after standard output was pointed at a file", "cat g 1<f >/dev/stdout"],
  ["`/dev/stderr` inside a group whose descriptor 2 reads a file", "{ cat g >/dev/stderr; } 2<f"],
  ["`/dev/fd/0` inside a loop that reads a file", "while read -r l; do echo x >/dev/fd/0; done <f"],
  ["`/dev/fd/3` inside a command string", "bash -c 'cat g >/dev/fd/3' 3<f"],
];

const sandbox = checkBubblewrap();
const describeWithSandbox = sandbox.available ? describe : describe.skip;
if (!sandbox.available) {
  process.stdout.write(`attacks-against-bash: skipped, no bubblewrap sandbox here (${sandbox.reason})\n`);
}

let parser: BashParser;
beforeAll(async () => {
  parser = await loadBashParser();
});

function decide(line: string): string {
  return evaluateCommandWith(parser, line, {
    approvalMode: "never",
    allowPrefixes: [],
    place: { workspaceRoot: SANDBOX_WORKSPACE },
  }).decision;
}

describeWithSandbox("attacks on the read-only judgement, against real bash", () => {
  let template: string;
  let runner: SandboxRunner;
  beforeAll(() => {
    template = createTemplate();
    runner = new SandboxRunner(template);
  });
  afterAll(async () => {
    await runner.close();
    rmSync(template, { recursive: true, force: true });
  });

  it.each(ATTACKS)("%s: bash writes, and `never` refuses it", async (_name, line) => {
    const run = await runner.run(line);
    expect(run.changes.length).toBeGreaterThan(0);
    expect(decide(line)).not.toBe("approved");
  });
});

describe("git's pinned settings are part of what `never` approves", () => {
  let folder: string;
  let marker: string;
  beforeAll(() => {
    // A folder of the checkout that looks like a repository whose work tree is itself.
    folder = mkdtempSync(path.join(os.tmpdir(), "agentforge-bare-looking-"));
    marker = path.join(folder, "FSMONITOR-RAN");
    const git = (...args: string[]): void => {
      const result = spawnSync("git", args, {
        cwd: folder,
        encoding: "utf8",
        env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: folder, GIT_CONFIG_NOSYSTEM: "1" },
      });
      expect(result.status).toBe(0);
    };
    git("init", "-q", "--bare", "--template=", ".");
    git("config", "core.bare", "false");
    git("config", "core.worktree", ".");
    git("config", "core.fsmonitor", `touch ${marker}; false`);
  });
  afterAll(() => {
    rmSync(folder, { recursive: true, force: true });
  });

  it("`git status` in the sandbox's environment obeys none of it; `env -i` would, and is refused", () => {
    const environment = buildSandboxEnvironment({
      hostEnv: {},
      path: process.env["PATH"] ?? "/usr/bin:/bin",
    });
    const run = (command: readonly string[]): void => {
      spawnSync(command[0] as string, command.slice(1), {
        cwd: folder,
        env: { ...environment, HOME: folder },
      });
    };
    run(["git", "status"]);
    expect(existsSync(marker)).toBe(false);
    run(["env", "-i", "git", "status"]);
    expect(existsSync(marker)).toBe(true);
    expect(decide("git status")).toBe("approved");
    for (const line of ["env -i git status", "env - git status", "env -u GIT_CONFIG_COUNT git status"]) {
      expect({ line, decision: decide(line) }).toEqual({ line, decision: "rejected" });
    }
  });
});
