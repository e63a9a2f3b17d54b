import type { SimpleGit } from "simple-git";
import { findNestedRepositories } from "../../../core/sandbox/find-nested-repositories.js";
import { findObjectAlternates } from "../../../core/sandbox/find-object-alternates.js";
import { createGit } from "./create-git.js";
import { describeGitFailure } from "./redact-token.js";
import { validateRemoteUrl } from "./validate-remote-url.js";

export interface GitIdentity {
  readonly name: string;
  readonly email: string;
}

export interface CommitAndPushOptions {
  readonly workspaceRoot: string;
  /** The work branch on the remote, e.g. `agentforge/issue-12`. */
  readonly branch: string;
  /** Subject and body; it should name the issue. The co-author trailer is appended here. */
  readonly message: string;
  /** The App: author and committer. */
  readonly author: GitIdentity;
  /** The person who asked, credited with a `Co-authored-by:` trailer. */
  readonly coAuthor?: GitIdentity;
  readonly token: string;
  /** The plain clone URL; the push goes there directly, whatever the workspace's config says. */
  readonly remoteUrl: string;
  /**
   * Where the remote branch must still stand for the push to go through (`Checkout.remoteBranchSha`).
   * Given, the push is `--force-with-lease` against it, so a re-run that started over from the
   * default branch replaces the previous attempt on the same branch and pull request, and a
   * push someone made meanwhile is never overwritten. Omitted, only a fast-forward is pushed.
   */
  readonly expectedRemoteSha?: string;
  /**
   * The commit the workspace was checked out at (`Checkout.headSha`). With it, commits already
   * made in the workspace (an earlier attempt whose push failed) are pushed even when nothing
   * new is staged.
   */
  readonly baseSha?: string;
  readonly signal?: AbortSignal;
}

export interface CommitAndPushResult {
  readonly committed: boolean;
  readonly sha?: string;
  readonly pushed: boolean;
  /** What went wrong, with the token removed; the caller turns it into a comment. */
  readonly error?: string;
  /** Nested repositories (submodules, repositories made in the checkout) not committed. */
  readonly leftOut?: readonly string[];
}

const IDENTITY_PATTERN = /^[^<>\n]+$/;

function trailerOf(coAuthor: GitIdentity): string {
  return `Co-authored-by: ${coAuthor.name} <${coAuthor.email}>`;
}

function isIdentity(identity: GitIdentity): boolean {
  return IDENTITY_PATTERN.test(identity.name) && IDENTITY_PATTERN.test(identity.email);
}

/** `message` plus the co-author trailer in its own paragraph, where git's trailer parser looks. */
export function buildCommitMessage(message: string, coAuthor?: GitIdentity): string {
  const trimmed = message.trim();
  if (coAuthor === undefined) return `${trimmed}\n`;
  return `${trimmed}\n\n${trailerOf(coAuthor)}\n`;
}

async function commitStaged(git: SimpleGit, options: CommitAndPushOptions): Promise<string> {
  await git.raw([
    "commit",
    "--no-verify",
    "--no-gpg-sign",
    "--cleanup=verbatim",
    "--message",
    buildCommitMessage(options.message, options.coAuthor),
  ]);
  return (await git.raw(["rev-parse", "HEAD"])).trim();
}

/**
 * Stages every change (`.gitignore` respected), commits it as the App and pushes it. Hooks do
 * not run: a hook in the workspace is repository content, and this runs on the host.
 */
export async function commitAndPush(options: CommitAndPushOptions): Promise<CommitAndPushResult> {
  const remote = validateRemoteUrl(options.remoteUrl);
  if (!remote.success) return { committed: false, pushed: false, error: remote.error };
  if (!isIdentity(options.author) || (options.coAuthor !== undefined && !isIdentity(options.coAuthor))) {
    return { committed: false, pushed: false, error: "an author or co-author name or email is malformed" };
  }
  const signal = options.signal === undefined ? {} : { signal: options.signal };
  const git = createGit({
    baseDirectory: options.workspaceRoot,
    settings: [
      ["user.name", options.author.name],
      ["user.email", options.author.email],
      ["core.hooksPath", "/dev/null"],
    ],
    ...signal,
  });

  let sha: string;
  let leftOut: string[] = [];
  try {
    await git.raw(["check-ref-format", `refs/heads/${options.branch}`]);
    // Objects borrowed from elsewhere on this machine could be pushed along with the commit.
    const alternates = await findObjectAlternates(options.workspaceRoot);
    if (alternates.length > 0) {
      return {
        committed: false,
        pushed: false,
        error: `the checkout's git directory names other object stores (${alternates.join(", ")}); nothing is committed or pushed from it`,
      };
    }
    // A nested repository (a submodule the setup populated, or one a command made) has a config
    // of the sandbox's writing, which a git started inside it would obey: `add` would start one
    // to see whether it changed. They are left out of `add`, their index entries put back as at
    // HEAD, and the commit is not made from them; `commit` itself does not look into them.
    const nested = await findNestedRepositories(options.workspaceRoot);
    const exclusions = nested.map((nestedPath) => `:(exclude,literal)${nestedPath}`);
    await git.raw(["add", "--all", "--", ".", ...exclusions]);
    for (const nestedPath of nested) await restoreIndexEntry(git, nestedPath);
    leftOut = nested;
    const staged = await git.raw(["diff", "--cached", "--name-only"]);
    if (staged.trim().length === 0) {
      const head = (await git.raw(["rev-parse", "HEAD"])).trim();
      if (options.baseSha === undefined || head === options.baseSha)
        return { committed: false, pushed: false };
      sha = head;
    } else {
      sha = await commitStaged(git, options);
    }
  } catch (error) {
    return { committed: false, pushed: false, error: describeGitFailure(error, options.token) };
  }

  const pushing = createGit({
    baseDirectory: options.workspaceRoot,
    authentication: { token: options.token, remoteUrl: options.remoteUrl },
    settings: [["core.hooksPath", "/dev/null"]],
    ...signal,
  });
  const target = `refs/heads/${options.branch}`;
  const lease =
    options.expectedRemoteSha === undefined
      ? []
      : [`--force-with-lease=${target}:${options.expectedRemoteSha}`];
  try {
    await pushing.raw(["push", "--no-verify", ...lease, options.remoteUrl, `HEAD:${target}`]);
  } catch (error) {
    return { committed: true, sha, pushed: false, error: describeGitFailure(error, options.token) };
  }
  return { committed: true, sha, pushed: true, ...(leftOut.length > 0 ? { leftOut } : {}) };
}

/**
 * Puts a path's index entry back as HEAD has it (or removes it), with plumbing that reads no
 * worktree: a gitlink staged in the sandbox is not the App's to commit.
 */
async function restoreIndexEntry(git: SimpleGit, entryPath: string): Promise<void> {
  const atHead = await git.raw(["ls-tree", "-z", "HEAD", "--", entryPath]);
  // "<mode> <type> <object>\t<path>\0"
  const match = /^(\d+) \w+ ([0-9a-f]+)\t/.exec(atHead);
  if (match === null) {
    await git.raw(["update-index", "--force-remove", "--", entryPath]);
    return;
  }
  await git.raw(["update-index", "--add", "--cacheinfo", `${match[1]},${match[2]},${entryPath}`]);
}
