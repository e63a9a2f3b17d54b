import { z } from "zod";
import type { GitHubRequester } from "../pull-request/github-requester.js";
import { readCiFixMarkers } from "./ci-fix-marker.js";

export interface CiFixHistory {
  /** Automatic attempts the bot started on this pull request (a person's `fix ci` is not one). */
  readonly automaticAttempts: number;
  /** Heads an automatic attempt already started from: a second red suite on one is not tried again. */
  readonly attemptedHeads: ReadonlySet<string>;
  /** Whether the bot already said that its automatic attempts are over. */
  readonly hasStopped: boolean;
}

const PAGE_SIZE = 100;
/** A conversation of more than 10,000 comments is not read to the end. */
const MAX_PAGES = 100;
const commentsSchema = z.array(
  z
    .object({
      body: z.string().nullable().optional(),
      user: z.object({ login: z.string() }).loose().nullable().optional(),
    })
    .loose(),
);

/**
 * What the bot did about red CI on one pull request before, read from its own comments only, so a
 * marker a person pastes (or edits into their comment) can neither use up nor reset the attempts.
 * GitHub keeps the comments, so the count holds across restarts, machines and both doors.
 */
export async function readCiFixHistory(
  octokit: GitHubRequester,
  target: { readonly owner: string; readonly repo: string; readonly number: number },
  ownLogins: readonly string[],
): Promise<CiFixHistory> {
  const own = new Set(ownLogins.map((login) => login.toLowerCase()));
  const attemptedHeads = new Set<string>();
  let automaticAttempts = 0;
  let hasStopped = false;
  for (let page = 1; page <= MAX_PAGES; page += 1) {
    const response = await octokit.request("GET /repos/{owner}/{repo}/issues/{issue_number}/comments", {
      owner: target.owner,
      repo: target.repo,
      issue_number: target.number,
      per_page: PAGE_SIZE,
      page,
    });
    const parsed = commentsSchema.safeParse(response.data);
    if (!parsed.success) throw new Error(`unexpected issue comments response: ${parsed.error.message}`);
    for (const comment of parsed.data) {
      const login = comment.user?.login.toLowerCase();
      if (login === undefined || !own.has(login)) continue;
      // One comment is one attempt, however often its marker appears in it.
      const markers = readCiFixMarkers(comment.body ?? "");
      const automatic = markers.find((marker) => marker.kind === "automatic");
      if (automatic !== undefined) {
        automaticAttempts += 1;
        attemptedHeads.add(automatic.headSha);
      }
      if (markers.some((marker) => marker.kind === "stopped")) hasStopped = true;
    }
    if (parsed.data.length < PAGE_SIZE) break;
  }
  return { automaticAttempts, attemptedHeads, hasStopped };
}
