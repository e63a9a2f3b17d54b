import { afterAll, beforeAll, expect, it } from "@jest/globals";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { lstat, mkdir, mkdtemp, readdir, readFile, readlink, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  createSandboxRunner,
  type SandboxRunner,
} from "../../../../src/core/sandbox/create-sandbox-runner.js";
import { scopeCommandRunner } from "../../../../src/core/tools/scope-command-runner.js";
import { commitAndPush } from "../../../../src/doors/github/workspace/commit-and-push.js";
import {
  createRepositoryCache,
  type Checkout,
} from "../../../../src/doors/github/workspace/create-repository-cache.js";
import { captureWorkspaceChanges } from "../../../../src/doors/github/workspace/workspace-changes.js";
import { diffForPullRequest } from "../../../../src/doors/github/review/diff-range-for-synchronize.js";
import { readInstructionsFromGitRef } from "../../../../src/core/skills/read-instructions-from-git-ref.js";
import { describeWithBwrap } from "../../../core/sandbox/sandbox-test-helpers.js";
import { createRemoteRepository, git } from "./git-fixtures.js";

/*
 * The App's checkout against a sandboxed command that does everything it can to the git metadata:
 * it writes every file there is, creates a file in every folder there is (and the names git would
 * read if they existed: config.worktree, commondir, info/attributes, objects/info/alternates,
 * hooks), replaces the `.git` pointer, and makes repositories of its own in the work tree. The
 * targets are listed from the git directory itself, so a file git adds in a later version is
 * covered too. Afterwards nothing in the git metadata has changed, and the host's commit, push,
 * hand-over capture, review diff and AGENTS.md read run none of the programs it named.
 */

/** Names git reads when they exist; the command tries to create each where it is missing. */
const NAMES_GIT_WOULD_READ = [
  "config.worktree",
  "commondir",
  "gitdir",
  "info/attributes",
  "info/exclude",
  "info/grafts",
  "objects/info/alternates",
  "objects/info/http-alternates",
  "hooks/pre-commit",
  "hooks/post-checkout",
  "hooks/reference-transaction",
  "hooks/fsmonitor-watchman",
  "shallow",
  "packed-refs",
  "refs/replace/0000000000000000000000000000000000000000",
];

async function listTree(root: string): Promise<{ files: string[]; folders: string[] }> {
  const files: string[] = [];
  const folders: string[] = [root];
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    const full = path.join(entry.parentPath, entry.name);
    if (entry.isDirectory()) folders.push(full);
    else files.push(full);
  }
  return { files, folders };
}

/** Every entry under `root` with its kind, mode and content digest: what "unchanged" means. */
async function snapshot(root: string): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    const full = path.join(entry.parentPath, entry.name);
    const info = await lstat(full);
    const relative = path.relative(root, full);
    if (info.isSymbolicLink()) result[relative] = `link:${await readlink(full)}`;
    else if (info.isDirectory()) result[relative] = `dir:${info.mode}`;
    else
      result[relative] = `file:${info.mode}:${createHash("sha256")
        .update(await readFile(full))
        .digest("hex")}`;
  }
  return result;
}

const shellQuote = (text: string): string => `'${text.replaceAll("'", "'\\''")}'`;

describeWithBwrap("the App's checkout and a hostile sandboxed command", () => {
  let root: string;
  let markers: string;
  let checkout: Checkout;
  let runner: SandboxRunner;
  let remote: string;
  let seedSha: string;
  let gitBefore: Record<string, string>;
  let mirrorBefore: Record<string, string>;
  let attack: Awaited<ReturnType<SandboxRunner["run"]>>;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), "agentforge-boundary-"));
    markers = path.join(root, "markers");
    await mkdir(markers);
    ({ bare: remote, seedSha } = await createRemoteRepository(path.join(root, "remotes"), "demo", 1_000));
    const cache = createRepositoryCache({ cacheDir: path.join(root, "cache") });
    checkout = await cache.checkout({
      cloneUrl: remote,
      token: "ghs_unusedForLocalPaths0123456789abcdef",
      ref: "main",
      branch: "agentforge/issue-1",
    });
    runner = createSandboxRunner({ mode: "bwrap" });
    const mirrorObjects = checkout.repository.sandboxReadOnlyPaths.find((entry) =>
      entry.endsWith("objects"),
    )!;
    gitBefore = await snapshot(checkout.repository.gitDirectory);
    mirrorBefore = await snapshot(mirrorObjects);

    const { files, folders } = await listTree(checkout.repository.gitDirectory);
    const mirror = await listTree(mirrorObjects);
    const program = (name: string): string => `touch ${path.join(markers, name)}; cat`;
    const gitDirectory = checkout.repository.gitDirectory;
    const lines = [
      // Every file there is: overwritten, appended to, removed, renamed.
      ...[...files, ...mirror.files].flatMap((file) => [
        `printf '[core]\\n\\tfsmonitor = ${program("fsmonitor")}\\n' >> ${shellQuote(file)} 2>/dev/null && echo WROTE ${shellQuote(file)}`,
        `rm -f ${shellQuote(file)} 2>/dev/null; [ -e ${shellQuote(file)} ] || echo REMOVED ${shellQuote(file)}`,
      ]),
      // A new file in every folder there is, and every name git would read.
      ...[...folders, ...mirror.folders].map(
        (folder) =>
          `echo x > ${shellQuote(path.join(folder, "planted"))} 2>/dev/null && echo CREATED ${shellQuote(folder)}`,
      ),
      ...NAMES_GIT_WOULD_READ.map(
        (name) =>
          `mkdir -p ${shellQuote(path.dirname(path.join(gitDirectory, name)))} 2>/dev/null; printf '%s\\n' ${shellQuote(path.join(root, "victim", "objects"))} > ${shellQuote(path.join(gitDirectory, name))} 2>/dev/null && echo CREATED ${shellQuote(name)}`,
      ),
      // The pointer the sandbox's git follows, and the folder it names.
      `echo 'gitdir: /etc' > .git 2>/dev/null && echo WROTE .git`,
      `rm -f .git 2>/dev/null; [ -e .git ] || echo REMOVED .git`,
      `mv ${shellQuote(gitDirectory)} /tmp/moved 2>/dev/null && echo MOVED`,
      // Repositories of its own in the work tree, each naming programs for git to run.
      `git init -q nested && git -C nested config core.fsmonitor '${program("nested-fsmonitor")}' && git -C nested config filter.x.clean '${program("nested-filter")}' && echo '* filter=x' > nested/.gitattributes && echo n > nested/n.txt && git -C nested add -A && git -C nested -c user.name=a -c user.email=a@a commit -qm n && echo n2 >> nested/n.txt`,
      `mkdir -p bare/objects bare/refs && echo 'ref: refs/heads/main' > bare/HEAD && printf '[core]\\n\\tbare = true\\n\\tfsmonitor = ${program("bare-fsmonitor")}\\n' > bare/config`,
      `printf '* filter=x diff=x merge=x\\n' > .gitattributes`,
      // The change the agent meant to make.
      "echo 'export const add = (a, b) => a + b + 0;' > src/add.js",
      // In-sandbox git still reads its repository.
      "git status --short >/dev/null && echo GIT-STATUS-OK",
      "git log --oneline -1 >/dev/null && echo GIT-LOG-OK",
      "(cd bare && git status >/dev/null 2>&1) || echo BARE-REFUSED",
      "true",
    ];
    await writeFile(path.join(root, "attack.sh"), lines.join("\n"));
    const scoped = scopeCommandRunner(runner, { readOnlyPaths: checkout.repository.sandboxReadOnlyPaths });
    attack = await scoped.run(lines.join("\n"), {
      cwd: checkout.workspaceRoot,
      workspaceRoot: checkout.workspaceRoot,
      timeoutMs: 60_000,
    });
  }, 120_000);

  afterAll(async () => {
    runner?.close();
    await rm(root, { recursive: true, force: true });
  });

  it("could write nothing in the git directory, the mirror's objects or the .git pointer", async () => {
    expect(attack.stdout).not.toMatch(/^(WROTE|REMOVED|CREATED|MOVED)/m);
    expect(await snapshot(checkout.repository.gitDirectory)).toEqual(gitBefore);
    const mirrorObjects = checkout.repository.sandboxReadOnlyPaths.find((entry) =>
      entry.endsWith("objects"),
    )!;
    expect(await snapshot(mirrorObjects)).toEqual(mirrorBefore);
    expect(await readFile(path.join(checkout.workspaceRoot, ".git"), "utf8")).toBe(
      `gitdir: ${checkout.repository.gitDirectory}\n`,
    );
  });

  it("still lets git inside the sandbox read its repository, and refuses a committed bare-looking folder", () => {
    expect(attack.stdout).toContain("GIT-STATUS-OK");
    expect(attack.stdout).toContain("GIT-LOG-OK");
    expect(attack.stdout).toContain("BARE-REFUSED");
    expect(existsSync(path.join(markers, "bare-fsmonitor"))).toBe(false);
  });

  it("runs none of the planted programs on the host through its capture, diff, AGENTS.md read, commit and push", async () => {
    const changes = await captureWorkspaceChanges(checkout.repository, checkout.headSha);
    expect(Buffer.from(changes.trackedPatchBase64, "base64").toString("utf8")).toContain("a + b + 0");
    await diffForPullRequest({ repository: checkout.repository, base: seedSha, head: "HEAD" });
    await readInstructionsFromGitRef(checkout.repository, seedSha);
    const pushed = await commitAndPush({
      repository: checkout.repository,
      branch: "agentforge/issue-1",
      message: "Fix #1",
      author: { name: "agentforge[bot]", email: "1+agentforge[bot]@users.noreply.github.com" },
      token: "ghs_unusedForLocalPaths0123456789abcdef",
      remoteUrl: remote,
    });
    expect(pushed).toMatchObject({ committed: true, pushed: true, leftOut: ["nested"] });
    expect(await readdir(markers)).toEqual([]);
    // What was pushed is the work tree's files, and nothing of the nested repository.
    const files = git(remote, "ls-tree", "-r", "--name-only", "agentforge/issue-1").split("\n");
    expect(files).toContain("src/add.js");
    expect(files).not.toContain("nested");
    expect(git(remote, "show", "agentforge/issue-1:src/add.js")).toContain("a + b + 0");
  });
});
