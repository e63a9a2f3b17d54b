import { z } from "zod";
import type { GitHubRequester } from "../pull-request/github-requester.js";
import { extractFingerprints } from "./fingerprint-finding.js";

export interface PullRequestRef {
  readonly owner: string;
  readonly repo: string;
  readonly pull_number: number;
}

const PAGE_SIZE = 100;
/** A pull request with more than 10,000 comments is not worth reading to the end. */
const MAX_PAGES = 100;
const bodiesSchema = z.array(z.object({ body: z.string().nullable().optional() }).loose());

async function collectFrom(
  octokit: GitHubRequester,
  route: string,
  target: PullRequestRef,
  into: Set<string>,
): Promise<void> {
  for (let page = 1; page <= MAX_PAGES; page += 1) {
    const response = await octokit.request(route, { ...target, per_page: PAGE_SIZE, page });
    const parsed = bodiesSchema.safeParse(response.data);
    if (!parsed.success) throw new Error(`unexpected response from ${route}: ${parsed.error.message}`);
    for (const item of parsed.data)
      for (const fingerprint of extractFingerprints(item.body ?? "")) into.add(fingerprint);
    if (parsed.data.length < PAGE_SIZE) return;
  }
}

/**
 * Fingerprints of findings already posted on a pull request: in inline review comments and in
 * review bodies (findings outside the diff, or moved there after a 422).
 */
export async function collectPostedFingerprints(
  octokit: GitHubRequester,
  target: PullRequestRef,
): Promise<Set<string>> {
  const fingerprints = new Set<string>();
  await collectFrom(octokit, "GET /repos/{owner}/{repo}/pulls/{pull_number}/comments", target, fingerprints);
  await collectFrom(octokit, "GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews", target, fingerprints);
  return fingerprints;
}
