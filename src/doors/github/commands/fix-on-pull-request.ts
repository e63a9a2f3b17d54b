/**
 * `fix` on a pull request means that pull request's branch: both doors turn it into a request to
 * change the branch (pushed there), never a new pull request made from the default branch.
 */
export function fixRequestOnPullRequest(instructions: string | undefined): string {
  return `fix ${instructions ?? "this"}`;
}
