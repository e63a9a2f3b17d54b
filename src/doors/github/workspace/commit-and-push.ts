import { findNestedRepositories } from "../../../core/git/index.js";
import type { HostRepository } from "../../../core/git/index.js";
import { runHostGit, type HostGitOptions } from "../../../core/git/index.js";
import { DEFAULT_BUILD_OUTPUT_PATTERNS } from "./build-output.js";
import { selectCommitFiles, type CommittedFile, type LeftOutFile } from "./select-commit-files.js";
import { validateRemoteUrl } from "./validate-remote-url.js";

export interface GitIdentity {
  readonly name: string;
  readonly email: string;
}

export interface CommitAndPushOptions {
  /** The checkout's git directory (out of the sandbox's reach) and work tree. */
  readonly repository: HostRepository & { readonly workTree: string };
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
  /** Files the run's tools wrote: committed even when they look like build output. */
  readonly agentChangedFiles?: readonly string[];
  /** Gitignore patterns of what commands produce and nobody commits (default DEFAULT_BUILD_OUTPUT_PATTERNS). */
  readonly buildOutputPatterns?: readonly string[];
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
  /** What this commit holds, and who changed each file. */
  readonly files?: readonly CommittedFile[];
  /** Everything not committed, with the reason: build output, ignored paths, nested repositories. */
  readonly excluded?: readonly LeftOutFile[];
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

type Git = (args: readonly string[]) => Promise<string>;

async function commitStaged(git: Git, options: CommitAndPushOptions): Promise<string> {
  await git([
    "commit",
    "--no-verify",
    "--no-gpg-sign",
    "--cleanup=verbatim",
    "--message",
    buildCommitMessage(options.message, options.coAuthor),
  ]);
  return (await git(["rev-parse", "HEAD"])).trim();
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Stages every change (`.gitignore` respected), commits it as the App and pushes it. Hooks do
 * not run: a hook is repository content, and this runs on the host. The git directory is the
 * checkout's own, which no sandboxed command could write, so its config, hooks and object stores
 * are the App's; what the work tree holds is only ever read as files.
 */
export async function commitAndPush(options: CommitAndPushOptions): Promise<CommitAndPushResult> {
  const remote = validateRemoteUrl(options.remoteUrl);
  if (!remote.success) return { committed: false, pushed: false, error: remote.error };
  if (!isIdentity(options.author) || (options.coAuthor !== undefined && !isIdentity(options.coAuthor))) {
    return { committed: false, pushed: false, error: "an author or co-author name or email is malformed" };
  }
  const base: HostGitOptions = options.signal === undefined ? {} : { signal: options.signal };
  const git: Git = async (args) =>
    (
      await runHostGit(options.repository, args, {
        ...base,
        settings: [
          ["user.name", options.author.name],
          ["user.email", options.author.email],
        ],
      })
    ).stdout;

  let sha: string;
  let leftOut: string[] = [];
  let selection: { files: readonly CommittedFile[]; excluded: readonly LeftOutFile[] } = {
    files: [],
    excluded: [],
  };
  try {
    await git(["check-ref-format", `refs/heads/${options.branch}`]);
    // A nested repository (a submodule the setup populated, or one a command made) has a config
    // of the sandbox's writing, which a git started inside it would obey: `add` would start one
    // to see whether it changed. They are left out of `add`, their index entries put back as at
    // HEAD, and the commit is not made from them; `commit` itself does not look into them.
    const nested = await findNestedRepositories(options.repository);
    const exclusions = nested.map((nestedPath) => `:(exclude,literal)${nestedPath}`);
    await git(["add", "--all", "--", ".", ...exclusions]);
    for (const nestedPath of nested) await restoreIndexEntry(git, nestedPath);
    leftOut = nested;
    const chosen = await selectCommitFiles(git, {
      agentChangedFiles: options.agentChangedFiles ?? [],
      buildOutputPatterns: options.buildOutputPatterns ?? DEFAULT_BUILD_OUTPUT_PATTERNS,
      unstage: (path) => restoreIndexEntry(git, path),
    });
    selection = {
      files: chosen.committed,
      excluded: [
        ...nested.map((path) => ({ path, reason: "a nested repository (its own git metadata)" })),
        ...chosen.leftOut,
      ],
    };
    const staged = await git(["diff", "--cached", "--name-only"]);
    if (staged.trim().length === 0) {
      const head = (await git(["rev-parse", "HEAD"])).trim();
      if (options.baseSha === undefined || head === options.baseSha)
        return { committed: false, pushed: false };
      sha = head;
    } else {
      sha = await commitStaged(git, options);
    }
  } catch (error) {
    return { committed: false, pushed: false, error: messageOf(error) };
  }

  const target = `refs/heads/${options.branch}`;
  const lease =
    options.expectedRemoteSha === undefined
      ? []
      : [`--force-with-lease=${target}:${options.expectedRemoteSha}`];
  try {
    await runHostGit(
      options.repository,
      ["push", "--no-verify", ...lease, "--", options.remoteUrl, `HEAD:${target}`],
      {
        ...base,
        usesNetwork: true,
        authentication: { token: options.token, remoteUrl: options.remoteUrl },
      },
    );
  } catch (error) {
    return { committed: true, sha, pushed: false, error: messageOf(error) };
  }
  return {
    committed: true,
    sha,
    pushed: true,
    ...(leftOut.length > 0 ? { leftOut } : {}),
    files: selection.files,
    excluded: selection.excluded,
  };
}

/**
 * Puts a path's index entry back as HEAD has it (or removes it), with plumbing that reads no
 * worktree: a gitlink staged in the sandbox is not the App's to commit.
 */
async function restoreIndexEntry(git: Git, entryPath: string): Promise<void> {
  const atHead = await git(["ls-tree", "-z", "HEAD", "--", entryPath]);
  // "<mode> <type> <object>\t<path>\0"
  const match = /^(\d+) \w+ ([0-9a-f]+)\t/.exec(atHead);
  if (match === null) {
    await git(["update-index", "--force-remove", "--", entryPath]);
    return;
  }
  await git(["update-index", "--add", "--cacheinfo", `${match[1]},${match[2]},${entryPath}`]);
}
