import { z } from "zod";
import type { GitIdentity } from "../workspace/commit-and-push.js";
import { statusOf, type GitHubRequester } from "../pull-request/github-requester.js";

const userSchema = z.object({ id: z.number().int(), login: z.string() }).loose();

/**
 * The requester as a `Co-authored-by` identity, with GitHub's no-reply address
 * (`ID+login@users.noreply.github.com`) so the commit links to their profile without exposing a
 * private e-mail. Without the id (the lookup failed) the plain no-reply form is used.
 */
export async function resolveCoAuthor(octokit: GitHubRequester, login: string): Promise<GitIdentity> {
  try {
    const response = await octokit.request("GET /users/{username}", { username: login });
    const user = userSchema.parse(response.data);
    return { name: user.login, email: `${user.id}+${user.login}@users.noreply.github.com` };
  } catch (error) {
    if (statusOf(error) === undefined && !(error instanceof z.ZodError)) throw error;
    return { name: login, email: `${login}@users.noreply.github.com` };
  }
}
