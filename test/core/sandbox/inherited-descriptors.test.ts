import { afterEach, beforeEach, expect, it } from "@jest/globals";
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describeWithBwrap, makeTempDirectory, removeDirectory } from "./sandbox-test-helpers.js";

const repository = fileURLToPath(new URL("../../../", import.meta.url));

let workspace: string;
beforeEach(async () => {
  workspace = await makeTempDirectory("agentforge-fds-");
});
afterEach(async () => {
  await removeDirectory(workspace);
});

/*
 * A harness started with a descriptor that is not close-on-exec (a supervisor's socket, a log)
 * hands it to every child. The runner runs here in a child process started with such a
 * descriptor (40); the sandboxed command must not find it, whichever path runs it.
 */
describeWithBwrap("descriptors the harness inherited", () => {
  it.each([
    ["a warm sandbox", true],
    ["a fresh sandbox", false],
  ])(
    "do not reach a command run in %s",
    (_label, reuseSandbox) => {
      const script = path.join(workspace, "run.mts");
      writeFileSync(
        script,
        `import { createSandboxRunner } from ${JSON.stringify(path.join(repository, "src/core/sandbox/create-sandbox-runner.ts"))};
const runner = createSandboxRunner({ mode: "bwrap", reuseSandbox: ${String(reuseSandbox)} });
const outcome = await runner.run("for fd in 3 4 5 6 7 8 9 40; do [ -e /proc/self/fd/$fd ] && echo open:$fd; done; echo checked", { cwd: process.argv[2], timeoutMs: 15000 });
runner.close();
process.stdout.write(outcome.stdout);
`,
      );
      // bash opens fd 40 without close-on-exec, and Node hands on what it inherits that way.
      const run = spawnSync(
        "bash",
        ["-c", 'exec 40>/dev/null; exec "$0" --import tsx "$1" "$2"', process.execPath, script, workspace],
        { cwd: repository, encoding: "utf8", timeout: 60_000 },
      );
      expect(run.stderr).toBe("");
      expect(run.stdout).toBe("checked\n");
    },
    90_000,
  );
});
