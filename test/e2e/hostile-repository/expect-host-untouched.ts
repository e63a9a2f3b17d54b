import { expect } from "@jest/globals";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import {
  bareGit,
  diffSnapshots,
  listMarkers,
  looseObjectsOf,
  objectsIntroduced,
  type FolderSnapshot,
} from "./host-evidence.js";
import type { AppRun, HostileApp, TaskView } from "./hostile-app.js";

/**
 * The index is the one file of the git directory the host's own git rewrites while the agent
 * runs (the hand-over's `git diff` refreshes its stat data, and the settle after the checkout
 * may still be writing it, under `index.lock`, when the first model request arrives: the run's
 * tools wait for it, its first request does not). No sandbox can write either.
 */
const HOST_REFRESHED = new Set(["index", "index.lock"]);

function agentPhaseChanges(before: FolderSnapshot, after: FolderSnapshot): string[] {
  const difference = diffSnapshots(before, after);
  return [...difference.added, ...difference.removed, ...difference.changed].filter(
    (entry) => !HOST_REFRESHED.has(entry),
  );
}

/** What the App's own commit writes into the git directory: its index, message, ref, reflogs, objects. */
function isCommitBookkeeping(entry: string, branch: string): boolean {
  return (
    entry === "index" ||
    entry === "COMMIT_EDITMSG" ||
    entry === "logs/HEAD" ||
    entry === `logs/refs/heads/${branch}` ||
    entry === `refs/heads/${branch}` ||
    /^objects\/[0-9a-f]{2}(\/[0-9a-f]{38})?$/.test(entry)
  );
}

function expectNothingPlanted(view: Pick<TaskView, "gitMentionsPlanted">, moment: string): void {
  expect({ moment, gitFilesNamingThePlantedProgram: view.gitMentionsPlanted }).toEqual({
    moment,
    gitFilesNamingThePlantedProgram: [],
  });
}

/**
 * Class 6, after every App run: nothing ran on the host, the git metadata the host reads changed
 * only by the App's own commit, the mirror not at all, and the pushed branch holds work-tree files
 * only (no gitlink, no `.git`, nothing of a nested repository).
 */
export function expectHostUntouched(
  app: HostileApp,
  run: AppRun,
  options: { readonly pushed: boolean },
): void {
  expect(listMarkers(app.markers)).toEqual([]);
  expect(run.leftoverTaskFolders).toEqual([]);
  expectNothingPlanted(run.atFirstRequest, "before the first tool call");
  expectNothingPlanted(run.atLastRequest, "after the last tool call");
  expect(agentPhaseChanges(run.atFirstRequest.git, run.atLastRequest.git)).toEqual([]);
  expect(diffSnapshots(run.atFirstRequest.mirror, run.mirrorAfter)).toEqual({
    added: [],
    removed: [],
    changed: [],
  });
  if (!options.pushed) {
    expect(run.atPush).toBeNull();
    expect(run.branchSha).toBeNull();
    return;
  }
  expect(run.branchSha).not.toBeNull();
  const sha = run.branchSha!;
  const push = run.atPush!;
  expect(push).not.toBeNull();
  expectNothingPlanted(push, "while the App pushed");
  expect(push.refUpdates.trim().split(" ").slice(1)).toEqual([sha, `refs/heads/${run.branch}`]);
  expect(bareGit(app.bareDir, ["rev-parse", `${sha}^`]).trim()).toBe(app.baseSha);

  const difference = diffSnapshots(run.atFirstRequest.git, push.git);
  expect(difference.removed).toEqual([]);
  expect(
    [...difference.added, ...difference.changed].filter((entry) => !isCommitBookkeeping(entry, run.branch)),
  ).toEqual([]);
  expect(readFileSync(path.join(push.gitDirectory, "refs", "heads", run.branch), "utf8").trim()).toBe(sha);
  const introduced = objectsIntroduced(app.bareDir, sha, app.baseSha);
  const written = [...looseObjectsOf(push.git)].filter(
    (id) => !looseObjectsOf(run.atFirstRequest.git).has(id),
  );
  expect(written.filter((id) => !introduced.has(id))).toEqual([]);

  // The pushed tree: files of the work tree as it was when the App pushed, nothing else.
  const entries = [...run.pushedFiles.values()];
  expect(entries.filter((entry) => entry.mode === "160000" || entry.type !== "blob")).toEqual([]);
  expect(entries.filter((entry) => entry.path.split("/").includes(".git"))).toEqual([]);
  const nestedUnder = (file: string): string | undefined => {
    const parts = file.split("/");
    for (let depth = 1; depth < parts.length; depth += 1) {
      const folder = parts.slice(0, depth).join("/");
      if (existsSync(path.join(push.workTree, folder, ".git"))) return folder;
    }
    return undefined;
  };
  expect(entries.map((entry) => entry.path).filter((file) => nestedUnder(file) !== undefined)).toEqual([]);
  const notAsInTheWorkTree = entries
    .filter((entry) => entry.mode !== "120000")
    .filter((entry) => {
      const file = path.join(push.workTree, entry.path);
      return !existsSync(file) || !readFileSync(file).equals(entry.content);
    })
    .map((entry) => entry.path);
  expect(notAsInTheWorkTree).toEqual([]);
}

/** A file of the pushed branch, as text; undefined when the branch does not have it. */
export function pushedFile(run: AppRun, file: string): string | undefined {
  return run.pushedFiles.get(file)?.content.toString("utf8");
}
