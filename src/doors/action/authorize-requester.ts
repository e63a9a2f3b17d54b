import { authorizeCommenter, type PermissionLevel } from "../github/commands/authorize-commenter.js";
import type { GitHubRequester } from "../github/pull-request/github-requester.js";
import type { Actor } from "./derive-action-plan.js";

export type RequesterAuthorization =
  | { readonly authorized: true; readonly permission: PermissionLevel }
  | { readonly authorized: false; readonly reason: string };

/**
 * Whether the person who triggered the step may command it: the App's rule (write access or
 * better, bots never), with the reason in words for the step's log and reply.
 */
export async function authorizeRequester(
  octokit: GitHubRequester,
  target: { readonly owner: string; readonly repo: string },
  requester: Actor,
): Promise<RequesterAuthorization> {
  const result = await authorizeCommenter(octokit, {
    ...target,
    username: requester.login,
    senderType: requester.type,
    minimumPermission: "write",
  });
  if (result.authorized) return result;
  switch (result.reason) {
    case "bot":
      return { authorized: false, reason: `${requester.login} is a bot` };
    case "lookup-failed":
      return {
        authorized: false,
        reason: `the permission of ${requester.login} could not be read, so the command is ignored`,
      };
    case "insufficient-permission":
      return {
        authorized: false,
        reason: `${requester.login} has ${result.permission ?? "no"} access; commands need write access`,
      };
  }
}
