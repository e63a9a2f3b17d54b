import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** Runs git in `cwd` for a test's set-up: no host config, a fixed identity; returns stdout. */
export function gitIn(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: process.env.HOME ?? "/",
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@example.com",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@example.com",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** Makes `directory` (and its parents) a repository whose one commit holds `files`; returns its id. */
export function commitRepository(
  directory: string,
  files: Readonly<Record<string, string>>,
  message = "base",
): string {
  mkdirSync(directory, { recursive: true });
  gitIn(directory, "init", "-q");
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(directory, name)), { recursive: true });
    writeFileSync(join(directory, name), content);
  }
  gitIn(directory, "add", "-A");
  gitIn(directory, "commit", "-q", "-m", message);
  return gitIn(directory, "rev-parse", "HEAD").trim();
}
