import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { OWNER, REPO, type JobHarness } from "./job-harness.js";

/** Commits `sum.js` with this content on `feature` (made from main the first time) and pushes it. */
export function pushFeatureCommit(harness: JobHarness, content: string, message: string): void {
  const bare = harness.github.repository(OWNER, REPO).bareDir;
  const work = mkdtempSync(path.join(tmpdir(), "agentforge-pr-"));
  try {
    const git = (...args: string[]) =>
      execFileSync("git", args, {
        cwd: work,
        encoding: "utf8",
        env: {
          ...process.env,
          GIT_AUTHOR_NAME: "b",
          GIT_AUTHOR_EMAIL: "b@example.com",
          GIT_COMMITTER_NAME: "b",
          GIT_COMMITTER_EMAIL: "b@example.com",
        },
      });
    git("clone", "-q", bare, ".");
    const exists = git("ls-remote", "--heads", "origin", "feature").trim() !== "";
    git("checkout", "-q", ...(exists ? ["feature"] : ["-b", "feature"]));
    writeFileSync(path.join(work, "sum.js"), content);
    git("commit", "-qam", message);
    git("push", "-q", "origin", "feature");
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

export const WITH_DIV =
  "function sum(a, b) {\n  return a + b;\n}\nfunction div(a, b) {\n  return a / b;\n}\nmodule.exports = { sum, div };\n";

/** Pushes a branch with a change to the bare repository and opens a pull request for it. */
export async function openPullRequest(harness: JobHarness): Promise<number> {
  pushFeatureCommit(harness, WITH_DIV, "Add div");
  const response = await harness.octokit.request("POST /repos/{owner}/{repo}/pulls", {
    owner: OWNER,
    repo: REPO,
    title: "Add div",
    head: "feature",
    base: "main",
  });
  return response.data.number;
}
