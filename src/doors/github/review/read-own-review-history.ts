import { z } from "zod";
import type { GitHubRequester } from "../pull-request/github-requester.js";
import { extractFingerprints } from "./fingerprint-finding.js";

export interface PullRequestRef {
  readonly owner: string;
  readonly repo: string;
  readonly pull_number: number;
}

export interface OwnReviewHistory {
  /** Fingerprints of findings this bot already posted, inline or in a review body. */
  readonly fingerprints: ReadonlySet<string>;
  /** The commit of this bot's newest review on the pull request, or null when it never reviewed it. */
  readonly lastReviewedCommit: string | null;
}

const PAGE_SIZE = 100;
/** A pull request with more than 10,000 comments is not worth reading to the end. */
const MAX_PAGES = 100;
const itemSchema = z
  .object({
    body: z.string().nullable().optional(),
    user: z.object({ login: z.string() }).loose().nullable().optional(),
    commit_id: z.string().nullable().optional(),
    submitted_at: z.string().nullable().optional(),
  })
  .loose();
type Item = z.infer<typeof itemSchema>;

async function readAll(octokit: GitHubRequester, route: string, target: PullRequestRef): Promise<Item[]> {
  const items: Item[] = [];
  for (let page = 1; page <= MAX_PAGES; page += 1) {
    const response = await octokit.request(route, { ...target, per_page: PAGE_SIZE, page });
    const parsed = z.array(itemSchema).safeParse(response.data);
    if (!parsed.success) throw new Error(`unexpected response from ${route}: ${parsed.error.message}`);
    items.push(...parsed.data);
    if (parsed.data.length < PAGE_SIZE) break;
  }
  return items;
}

/**
 * What this bot said on a pull request before: the findings it posted (never raised again,
 * whatever became of their threads) and the commit it last reviewed (where an incremental review
 * starts). Only comments and reviews written by `ownLogin` count, so nobody can silence a finding
 * or move the review's starting point by pasting a marker or reviewing under another name.
 */
export async function readOwnReviewHistory(
  octokit: GitHubRequester,
  target: PullRequestRef,
  ownLogin: string,
): Promise<OwnReviewHistory> {
  const isOwn = (item: Item): boolean => item.user?.login.toLowerCase() === ownLogin.toLowerCase();
  const comments = (
    await readAll(octokit, "GET /repos/{owner}/{repo}/pulls/{pull_number}/comments", target)
  ).filter(isOwn);
  const reviews = (
    await readAll(octokit, "GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews", target)
  ).filter(isOwn);
  const fingerprints = new Set<string>();
  for (const item of [...comments, ...reviews])
    for (const fingerprint of extractFingerprints(item.body ?? "")) fingerprints.add(fingerprint);
  // GitHub lists reviews oldest first; the newest with a commit is where the last review stood.
  const lastReviewedCommit =
    reviews.findLast((review) => typeof review.commit_id === "string")?.commit_id ?? null;
  return { fingerprints, lastReviewedCommit };
}
