import { authorizeCommenter } from "../commands/authorize-commenter.js";
import type { GitHubRequester } from "../pull-request/github-requester.js";
import type { DoorLogger } from "../github-logger.js";

/**
 * Associations GitHub gives a comment's author when they are not the repository's owner, a member
 * of its organisation or a collaborator: such an author cannot have write access, so no lookup.
 */
const NEVER_WRITERS = new Set(["NONE", "CONTRIBUTOR", "FIRST_TIMER", "FIRST_TIME_CONTRIBUTOR", "MANNEQUIN"]);

export type WriterCheck = (login: string, authorAssociation: string | undefined) => Promise<boolean>;

/**
 * Whether a person may write to the repository, asked once per login (the collaborator-permission
 * endpoint, as for commands). Fails closed: a lookup that fails counts as "no".
 */
export function createWriterCheck(
  octokit: GitHubRequester,
  target: { readonly owner: string; readonly repo: string },
  logger?: DoorLogger,
): WriterCheck {
  const known = new Map<string, Promise<boolean>>();
  return (login, authorAssociation) => {
    if (authorAssociation !== undefined && NEVER_WRITERS.has(authorAssociation))
      return Promise.resolve(false);
    const key = login.toLowerCase();
    let answer = known.get(key);
    if (answer === undefined) {
      answer = authorizeCommenter(octokit, {
        owner: target.owner,
        repo: target.repo,
        username: login,
        minimumPermission: "write",
        ...(logger === undefined ? {} : { logger }),
      }).then((result) => result.authorized);
      known.set(key, answer);
    }
    return answer;
  };
}
