/**
 * A path segment git takes for its own directory: `.git` in any case (case-insensitive file
 * systems), also with the trailing dots or spaces Windows drops. It matches the repository's own
 * `.git`, a submodule's, a worktree's `.git` file, and the spellings that reach one of them.
 */
export function isGitName(segment: string): boolean {
  return /^\.git[. ]*$/i.test(segment);
}

/** Whether any segment of a relative path (either separator) is one of git's names. */
export function hasGitSegment(relativePath: string): boolean {
  return relativePath.split(/[\\/]/).some(isGitName);
}
