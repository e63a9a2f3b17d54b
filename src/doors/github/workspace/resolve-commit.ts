import {
  isHostGitError,
  runHostGit,
  type HostGitOptions,
  type HostRepository,
} from "../../../core/git/index.js";
import type { MirrorRef } from "./read-mirror-refs.js";

const SHA_PATTERN = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/i;

/**
 * The commit a name stands for: branches, tags and fetched refs are looked up in the refs read
 * once; only a name that is none of them (a commit id) costs a git process.
 */
export async function resolveCommit(
  mirror: HostRepository,
  refs: ReadonlyMap<string, MirrorRef>,
  ref: string,
  options: HostGitOptions,
): Promise<string | null> {
  const candidates =
    ref.startsWith("refs/") || SHA_PATTERN.test(ref) ? [ref] : [`refs/heads/${ref}`, `refs/tags/${ref}`, ref];
  for (const candidate of candidates) {
    const known = refs.get(candidate);
    if (known !== undefined) {
      if (known.commit !== null) return known.commit;
      continue;
    }
    if (candidate.startsWith("refs/")) continue;
    const output = await runHostGit(
      mirror,
      ["rev-parse", "--verify", "--quiet", `${candidate}^{commit}`],
      options,
    ).then(
      (result) => result.stdout.trim(),
      (error: unknown) => {
        // `--verify --quiet` exits 1 with no output when the name does not resolve.
        if (isHostGitError(error) && error.code === "GIT_FAILED") return "";
        throw error;
      },
    );
    if (output.length > 0) return output;
  }
  return null;
}
