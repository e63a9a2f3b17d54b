import type { HostRepository } from "../git/host-repository.js";
import { isHostGitError } from "../git/host-git-error.js";
import { runHostGitForBuffer } from "../git/run-host-git.js";
import { InstructionsError } from "./instructions-error.js";
import { DEFAULT_INSTRUCTIONS_MAX_BYTES, withTruncationNote } from "./read-repository-instructions.js";

/**
 * AGENTS.md as it is at a git ref (the base branch of a pull request), read from the object
 * database of the checkout's git directory: the checked-out files may be the PR head, which is
 * not trusted to instruct the agent. Plumbing only (rev-parse, ls-tree, cat-file), through the
 * host's git runner: explicit git directory, pinned config, an environment without secrets. The
 * ref is checked so it cannot be read as an option.
 */
export interface GitRefInstructionsOptions {
  readonly maxBytes?: number;
  readonly timeoutMs?: number;
}

/** Larger AGENTS.md blobs are refused rather than loaded just to be cut. */
const MAX_BLOB_BYTES = 4 * 1024 * 1024;

type GitOutcome =
  | { readonly ok: true; readonly stdout: Buffer }
  | {
      readonly ok: false;
      readonly exitCode: number | undefined;
      readonly reason: string;
      readonly cause: Error;
    };

export async function readInstructionsFromGitRef(
  repository: HostRepository,
  ref: string,
  options: GitRefInstructionsOptions = {},
): Promise<string | null> {
  const maxBytes = options.maxBytes ?? DEFAULT_INSTRUCTIONS_MAX_BYTES;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const where = repository.gitDirectory;
  // eslint-disable-next-line no-control-regex
  if (ref.length === 0 || ref.length > 256 || ref.startsWith("-") || /[\s:\u0000-\u001f\u007f]/.test(ref)) {
    throw new InstructionsError("INVALID_REF", `invalid git ref ${JSON.stringify(ref)}`);
  }
  // Objects only: no work tree is named, so nothing checked out is read.
  const objects: HostRepository = { gitDirectory: repository.gitDirectory };
  const git = async (args: readonly string[], maxBuffer = 64 * 1024): Promise<GitOutcome> => {
    try {
      const { stdout } = await runHostGitForBuffer(objects, args, { timeoutMs, maxBuffer });
      return { ok: true, stdout };
    } catch (error) {
      if (!isHostGitError(error)) throw error;
      return { ok: false, exitCode: error.exitCode, reason: error.message, cause: error };
    }
  };
  const failed = (action: string, outcome: Extract<GitOutcome, { ok: false }>): InstructionsError =>
    new InstructionsError(
      "GIT_FAILED",
      `git could not ${action} AGENTS.md at ${ref} in ${where}: ${outcome.reason}`,
      {
        cause: outcome.cause,
      },
    );

  const resolved = await git(["rev-parse", "--verify", "--quiet", `${ref}^{commit}`]);
  if (!resolved.ok) {
    // `rev-parse --verify --quiet` exits 1, silently, exactly when the ref names no commit.
    if (resolved.exitCode === 1) {
      throw new InstructionsError("INVALID_REF", `${ref} does not name a commit in ${where}`, {
        cause: resolved.cause,
      });
    }
    throw failed("resolve", resolved);
  }
  const commit = resolved.stdout.toString("utf8").trim();

  const listed = await git(["ls-tree", "-l", "-z", "--full-tree", commit, "--", "AGENTS.md"]);
  if (!listed.ok) throw failed("list", listed);
  const listing = listed.stdout.toString("utf8");
  if (listing === "") return null;
  // "<mode> <type> <object> <size>\t<path>\0", size right-aligned with spaces.
  const [meta = ""] = listing.split("\t");
  const [mode, type, object, size] = meta.trim().split(/\s+/);
  if (type !== "blob" || mode === "120000" || object === undefined) {
    throw new InstructionsError(
      "NOT_A_FILE",
      `AGENTS.md at ${ref} is not a regular file (mode ${mode ?? "?"})`,
    );
  }
  const totalBytes = Number(size);
  if (!Number.isFinite(totalBytes) || totalBytes > MAX_BLOB_BYTES) {
    throw new InstructionsError(
      "TOO_LARGE",
      `AGENTS.md at ${ref} is ${size ?? "?"} bytes; the limit is ${MAX_BLOB_BYTES}`,
    );
  }
  const read = await git(["cat-file", "blob", object], totalBytes + 1024);
  if (!read.ok) throw failed("read", read);
  return withTruncationNote(read.stdout, maxBytes, read.stdout.length);
}
